/**
 * The guard of the layering (docs/development.md, "Layers"): the real tree keeps every rule, and
 * one planted import of each kind, read with the real tree, is caught by its rule.
 */
import { join } from 'node:path';
import {
  type ImportEdge,
  importCycles,
  importGraph,
  layerViolations,
  longFiles,
  Rule,
  type Violation,
} from '../support/import-graph';

const ROOT = join(__dirname, '..', '..');
/** Where the library's and its tools' sources live (tests are not held to the length). */
const SOURCE_FOLDERS = ['lib', 'lambda', 'contracts', 'simulator', 'cli', 'tools'];
const tree = importGraph(ROOT);

/** The violations of the tree with `planted` files read as if they were there, less those of the tree alone. */
function plantedViolations(planted: Record<string, string>): Violation[] {
  return layerViolations(importGraph(ROOT, planted)).filter((v) => Object.keys(planted).includes(v.from));
}

describe('the tree', () => {
  it('reads the imports it guards (type-only ones included)', () => {
    const has = (from: string, to: string, typeOnly?: boolean) =>
      tree.some(
        (e: ImportEdge) => e.from === from && e.to === to && (typeOnly === undefined || e.typeOnly === typeOnly),
      );
    expect(has('lambda/processor/index.ts', 'lambda/bank/families.ts', false)).toBe(true);
    expect(has('lib/reconciliation/reconciliation-sweep-props.ts', 'lib/processor/settlement-processor.ts', true)).toBe(
      true,
    );
    expect(has('lib/registration/index.ts', 'lib/core/registration-provider.ts')).toBe(true);
    expect(tree.length).toBeGreaterThan(300);
  });

  it('keeps every layering rule and has no import cycle', () => {
    expect(layerViolations(tree)).toEqual([]);
    expect(importCycles(tree)).toEqual([]);
  });

  it('has no source file over 400 lines, and a facade of at most 300', () => {
    expect(longFiles(ROOT, SOURCE_FOLDERS, 400)).toEqual([]);
    expect(longFiles(ROOT, ['lib/bank-webhook-receiver.ts'], 300)).toEqual([]);
  });

  it('catches a planted file of 401 lines in any of those folders', () => {
    for (const folder of SOURCE_FOLDERS) {
      const planted = `${folder}/planted-long.ts`;
      expect(longFiles(ROOT, SOURCE_FOLDERS, 400, { [planted]: 'export const x = 1;\n'.repeat(401) })).toEqual([
        { file: planted, lines: 401 },
      ]);
    }
  });
});

describe('a planted import is caught', () => {
  it.each<[string, Record<string, string>, Violation[]]>([
    [
      "a handler folder importing another one's type",
      {
        'lambda/processor/planted.ts':
          "import type { SweepDeps } from '../reconciliation/sweep';\nexport type P = SweepDeps;\n",
      },
      [{ rule: Rule.HANDLER_INTO_HANDLER, from: 'lambda/processor/planted.ts', to: 'lambda/reconciliation/sweep.ts' }],
    ],
    [
      'a layer importing a handler folder',
      {
        'lambda/store/planted.ts': "export { readProcessorSettings } from '../processor/settings';\n",
      },
      [{ rule: Rule.LAYER_UPWARD, from: 'lambda/store/planted.ts', to: 'lambda/processor/settings.ts' }],
    ],
    [
      'a layer importing a layer above it',
      {
        'lambda/bank/planted.ts':
          "import { EMPTY_RECORD } from '../store/subject-store';\nexport const r = EMPTY_RECORD;\n",
      },
      [{ rule: Rule.LAYER_UPWARD, from: 'lambda/bank/planted.ts', to: 'lambda/store/subject-store.ts' }],
    ],
    [
      'a new lambda folder that is no handler and no known layer',
      {
        'lambda/helpers/planted.ts': "import { sleep } from '../shared/retry';\nexport const s = sleep;\n",
      },
      [{ rule: Rule.UNKNOWN_LAMBDA_FOLDER, from: 'lambda/helpers/planted.ts', to: 'lambda/helpers/' }],
    ],
    [
      'a stand-alone part importing a sibling part (a type counts)',
      {
        'lib/endpoint/planted.ts':
          "import type { SettlementProcessorProps } from '../processor/settlement-processor-props';\nexport type P = SettlementProcessorProps;\n",
      },
      [
        {
          rule: Rule.PART_INTO_SIBLING,
          from: 'lib/endpoint/planted.ts',
          to: 'lib/processor/settlement-processor-props.ts',
        },
      ],
    ],
    [
      'a part built on another importing more than its types',
      {
        'lib/reconciliation/planted.ts':
          "import { SettlementProcessor } from '../processor/settlement-processor';\nexport const P = SettlementProcessor;\n",
      },
      [
        {
          rule: Rule.PART_INTO_SIBLING,
          from: 'lib/reconciliation/planted.ts',
          to: 'lib/processor/settlement-processor.ts',
        },
      ],
    ],
    [
      "an API family's lib layer importing a part",
      {
        'lib/families/pix/planted.ts':
          "import type { SettlementProcessorProps } from '../../processor/settlement-processor-props';\nexport type P = SettlementProcessorProps;\n",
      },
      [
        {
          rule: Rule.LIB_FAMILY_UPWARD,
          from: 'lib/families/pix/planted.ts',
          to: 'lib/processor/settlement-processor-props.ts',
        },
      ],
    ],
    [
      "an API family's lib layer importing another family's",
      {
        'lib/families/pix/planted.ts':
          "import type { CooperativeConnectionProps } from '../cooperative/connection';\nexport type P = CooperativeConnectionProps;\n",
      },
      [
        {
          rule: Rule.LIB_FAMILY_UPWARD,
          from: 'lib/families/pix/planted.ts',
          to: 'lib/families/cooperative/connection.ts',
        },
      ],
    ],
    [
      "lib/core importing an API family's lib layer",
      {
        'lib/core/planted.ts':
          "import type { PixReceiverProps } from '../families/pix/receiver';\nexport type P = PixReceiverProps;\n",
      },
      [{ rule: Rule.CORE_INTO_PART, from: 'lib/core/planted.ts', to: 'lib/families/pix/receiver.ts' }],
    ],
    [
      'lib/core importing a part',
      {
        'lib/core/planted.ts':
          "import { BankWebhookEndpoint } from '../endpoint/bank-webhook-endpoint';\nexport const E = BankWebhookEndpoint;\n",
      },
      [{ rule: Rule.CORE_INTO_PART, from: 'lib/core/planted.ts', to: 'lib/endpoint/bank-webhook-endpoint.ts' }],
    ],
    [
      'a part importing the facade',
      {
        'lib/processor/planted.ts':
          "import type { BankWebhookReceiverProps } from '../bank-webhook-receiver';\nexport type P = BankWebhookReceiverProps;\n",
      },
      [{ rule: Rule.PART_INTO_FACADE, from: 'lib/processor/planted.ts', to: 'lib/bank-webhook-receiver.ts' }],
    ],
    [
      'a handler importing an API family by name, even its index.ts',
      {
        'lambda/processor/planted.ts': "import { pixFamily } from '../bank/pix';\nexport const p = pixFamily;\n",
      },
      [{ rule: Rule.FAMILY_BY_NAME, from: 'lambda/processor/planted.ts', to: 'lambda/bank/pix/index.ts' }],
    ],
    [
      "the sweep importing an API family's internals",
      {
        'lambda/reconciliation/planted.ts':
          "import { settledBoletoListing } from '../bank/cooperative/listing';\nexport const l = settledBoletoListing;\n",
      },
      [
        {
          rule: Rule.FAMILY_BY_NAME,
          from: 'lambda/reconciliation/planted.ts',
          to: 'lambda/bank/cooperative/listing.ts',
        },
      ],
    ],
    [
      "the receiver importing a family's receiving.ts, not the intakes",
      {
        'lambda/receiver/planted.ts':
          "import { pixBodyShape } from '../bank/pix/receiving';\nexport const i = pixBodyShape;\n",
      },
      [{ rule: Rule.FAMILY_BY_NAME, from: 'lambda/receiver/planted.ts', to: 'lambda/bank/pix/receiving.ts' }],
    ],
    [
      'the store importing a family, even its index.ts',
      {
        'lambda/store/planted.ts':
          "import { nossoNumeroOf } from '../bank/cooperative';\nexport const n = nossoNumeroOf;\n",
      },
      [{ rule: Rule.FAMILY_BY_NAME, from: 'lambda/store/planted.ts', to: 'lambda/bank/cooperative/index.ts' }],
    ],
    [
      'the CLI importing a family, even its index.ts',
      {
        'cli/operate/planted.ts': "import { pixFamily } from '../../lambda/bank/pix';\nexport const p = pixFamily;\n",
      },
      [{ rule: Rule.FAMILY_BY_NAME, from: 'cli/operate/planted.ts', to: 'lambda/bank/pix/index.ts' }],
    ],
    [
      "a layer importing a family's internals (not its index.ts)",
      {
        'lambda/bank/planted.ts': "import { boletoState } from './cooperative/state';\nexport const b = boletoState;\n",
      },
      [{ rule: Rule.FAMILY_INTERNALS, from: 'lambda/bank/planted.ts', to: 'lambda/bank/cooperative/state.ts' }],
    ],
    [
      "one API family importing another's internals",
      {
        'lambda/bank/cooperative/planted.ts': "import { readPix } from '../pix/answers';\nexport const r = readPix;\n",
      },
      [{ rule: Rule.FAMILY_INTERNALS, from: 'lambda/bank/cooperative/planted.ts', to: 'lambda/bank/pix/answers.ts' }],
    ],
    [
      'tools importing an example',
      {
        'tools/planted.ts':
          "import { buildExampleApp } from '../examples/basic-receiver/app';\nexport const b = buildExampleApp;\n",
      },
      [{ rule: Rule.TOOLS_INTO_EXAMPLES, from: 'tools/planted.ts', to: 'examples/basic-receiver/app.ts' }],
    ],
    [
      "tools importing a handler's internals",
      {
        'tools/bench/planted.ts':
          "import { processBatch } from '../../lambda/processor/batch';\nexport const p = processBatch;\n",
      },
      [{ rule: Rule.TOOLS_INTO_HANDLER, from: 'tools/bench/planted.ts', to: 'lambda/processor/batch.ts' }],
    ],
    [
      'lambda importing lib',
      {
        'lambda/shared/planted.ts':
          "import { processorSettings } from '../../lib/processor/processor-settings';\nexport const p = processorSettings;\n",
      },
      [{ rule: Rule.LIB_LAMBDA, from: 'lambda/shared/planted.ts', to: 'lib/processor/processor-settings.ts' }],
    ],
    [
      'a handler other than the sandbox importing the simulator',
      {
        'lambda/processor/planted.ts':
          "import { paymentBody } from '../../simulator/model';\nexport const p = paymentBody;\n",
      },
      [{ rule: Rule.SIMULATOR_INTO_LAMBDA, from: 'lambda/processor/planted.ts', to: 'simulator/model.ts' }],
    ],
    [
      'contracts importing outside contracts',
      {
        'contracts/planted.ts': "import type { Log } from '../lambda/shared/runtime';\nexport type L = Log;\n",
      },
      [{ rule: Rule.CONTRACTS_OUTWARD, from: 'contracts/planted.ts', to: 'lambda/shared/runtime.ts' }],
    ],
    [
      'a cycle of type-only imports',
      {
        'simulator/planted-a.ts': "import type { B } from './planted-b';\nexport interface A { b?: B }\n",
        'simulator/planted-b.ts': "import type { A } from './planted-a';\nexport interface B { a?: A }\n",
      },
      [
        { rule: Rule.CYCLE, from: 'simulator/planted-a.ts', to: 'simulator/planted-b.ts' },
        { rule: Rule.CYCLE, from: 'simulator/planted-b.ts', to: 'simulator/planted-a.ts' },
      ],
    ],
  ])('%s', (_name, planted, expected) => {
    expect(plantedViolations(planted)).toEqual(expected);
  });

  it('lets a part built on another import its types, and a handler import the layers and contracts', () => {
    expect(
      plantedViolations({
        'lib/reconciliation/planted.ts':
          "import type { SettlementProcessor } from '../processor/settlement-processor';\nexport type P = SettlementProcessor;\n",
        'lambda/reconciliation/planted.ts':
          "import { bankDay } from '../bank/answers';\nimport { sleep } from '../shared/retry';\nimport { EMPTY_RECORD } from '../store/subject-store';\nimport { SweepDefaults } from '../../contracts/reconciliation';\nexport const x = [bankDay, sleep, EMPTY_RECORD, SweepDefaults];\n",
        'tools/planted.ts':
          "import { DynamoDbSubjectStore } from '../lambda/store/subject-store';\nexport const d = DynamoDbSubjectStore;\n",
      }),
    ).toEqual([]);
  });
});
