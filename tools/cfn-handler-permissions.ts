/**
 * The IAM actions CloudFormation's handlers call for each resource type the library's stacks hold
 * (the `handlers` of the CloudFormation registry's resource schemas, as cfn-lint ships them), kept in
 * test/fixtures/cfn-handler-permissions.json: the configuration guard's tests let these through for
 * the deployment role and refuse them to everyone else.
 *
 *   npx tsx tools/cfn-handler-permissions.ts <cfn-lint venv> [--write]
 *
 * Without `--write` it checks the fixture against that cfn-lint's schemas and fails on any
 * difference (CI runs it where it installs cfn-lint); with it, it rewrites the fixture for the types
 * the fixture already lists plus any given after `--add`.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIXTURE = join(__dirname, '..', 'test', 'fixtures', 'cfn-handler-permissions.json');

/** The handlers CloudFormation runs for a stack's deploy, update and destroy, and the read a drift detection makes. */
const HANDLERS = ['create', 'read', 'update', 'delete'] as const;

export interface HandlerPermissions {
  /** Where the permissions came from. */
  readonly source: string;
  readonly types: Record<string, Record<(typeof HANDLERS)[number], string[]>>;
}

/** cfn-lint's schema folder in a virtual environment. */
function schemasIn(venv: string): string {
  const lib = join(venv, 'lib');
  const python = readdirSync(lib).find((name) => name.startsWith('python'));
  if (!python) throw new Error(`no python folder in ${lib}: is ${venv} cfn-lint's virtual environment?`);
  return join(lib, python, 'site-packages', 'cfnlint', 'data', 'schemas');
}

/** The handler permissions of `types` from cfn-lint's us-east-1 schemas. */
export function readPermissions(venv: string, types: readonly string[]): HandlerPermissions {
  const schemas = schemasIn(venv);
  const index = JSON.parse(readFileSync(join(schemas, 'providers', 'us-east-1.json'), 'utf8')) as Record<
    string,
    string
  >;
  const version = readdirSync(join(schemas, '..', '..', '..'))
    .find((name) => /^cfn_lint-.*\.dist-info$/.test(name))
    ?.replace(/^cfn_lint-(.*)\.dist-info$/, '$1');
  const out: HandlerPermissions['types'] = {};
  for (const type of [...types].sort()) {
    const file = index[type];
    if (!file) throw new Error(`cfn-lint's schemas hold no ${type}`);
    const schema = JSON.parse(readFileSync(join(schemas, 'resources', `${file}.json`), 'utf8')) as {
      handlers?: Record<string, { permissions?: string[] }>;
    };
    out[type] = Object.fromEntries(
      HANDLERS.map((handler) => [handler, [...(schema.handlers?.[handler]?.permissions ?? [])].sort()]),
    ) as HandlerPermissions['types'][string];
  }
  return { source: `cfn-lint ${version ?? '(unknown version)'}, resource schemas of us-east-1`, types: out };
}

function main(args: string[]): void {
  const [venv] = args;
  if (!venv)
    throw new Error('usage: npx tsx tools/cfn-handler-permissions.ts <cfn-lint venv> [--write] [--add TYPE...]');
  const current = JSON.parse(readFileSync(FIXTURE, 'utf8')) as HandlerPermissions;
  const added = args.includes('--add') ? args.slice(args.indexOf('--add') + 1) : [];
  const fresh = readPermissions(venv, [...new Set([...Object.keys(current.types), ...added])]);
  const text = `${JSON.stringify(fresh, null, 1)}\n`;
  if (args.includes('--write')) {
    writeFileSync(FIXTURE, text);
    console.log(`wrote ${Object.keys(fresh.types).length} types to ${FIXTURE}`);
    return;
  }
  if (text !== readFileSync(FIXTURE, 'utf8')) {
    console.error(
      `${FIXTURE} differs from ${fresh.source}: rewrite it (npx tsx tools/cfn-handler-permissions.ts <venv> --write), then run the configuration guard's tests`,
    );
    process.exit(1);
  }
  console.log(`the handler permissions of ${Object.keys(fresh.types).length} types are as ${fresh.source} has them`);
}

if (require.main === module) main(process.argv.slice(2));
