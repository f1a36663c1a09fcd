/**
 * The standard Pix API's OpenAPI document (test/fixtures/pix-api/bacen-pix-api-2.9.0/, see its
 * NOTICE.md), loaded with its known slips patched, and its component schemas as validators.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

export const PIX_OPENAPI_FILE = join(__dirname, '..', 'fixtures', 'pix-api', 'bacen-pix-api-2.9.0', 'openapi.yaml');

export type OpenApiDocument = {
  info: { version: string; license?: { name: string } };
  components: Record<string, Record<string, any>>;
};

/** One slip of the document and its patch: `apply` answers whether it found the slip (and fixed it). */
export interface OpenApiPatch {
  readonly what: string;
  readonly apply: (doc: OpenApiDocument) => boolean;
}

export const PIX_OPENAPI_PATCHES: readonly OpenApiPatch[] = [
  {
    what: 'RecNotification.required lists `atualizacao"` (a stray quote): read as `atualizacao`',
    apply: (doc) => {
      const required = doc.components.schemas.RecNotification?.required as string[] | undefined;
      const at = required?.indexOf('atualizacao"') ?? -1;
      if (at < 0) return false;
      required![at] = 'atualizacao';
      return true;
    },
  },
  {
    what: "Pix.txid is allOf the charge's TxId (26 to 35) and [a-zA-Z0-9]{1,35}: a static code's shorter txid is refused; read as the latter alone",
    apply: (doc) => {
      const txid = doc.components.schemas.Pix?.properties?.txid as
        { allOf?: Array<{ $ref?: string; pattern?: string }> } | undefined;
      const own = txid?.allOf?.find((part) => part.pattern);
      if (!txid?.allOf?.some((part) => part.$ref === '#/components/schemas/TxId') || !own) return false;
      doc.components.schemas.Pix.properties.txid = { type: 'string', pattern: own.pattern };
      return true;
    },
  },
  {
    what: "PixConsultados.required lists `cobs` (the charges' list) where its property is `pix`: read as `pix`",
    apply: (doc) => {
      const required = doc.components.schemas.PixConsultados?.required as string[] | undefined;
      const at = required?.indexOf('cobs') ?? -1;
      if (at < 0 || doc.components.schemas.PixConsultados.properties?.cobs) return false;
      required![at] = 'pix';
      return true;
    },
  },
  {
    what: "WebhookCompleto requires `cnpj` (a debtor filter's field) where its examples and every provider show `chave`: read as `chave` or `cnpj`",
    apply: (doc) => {
      const webhook = doc.components.schemas.WebhookCompleto;
      const required = webhook?.required as string[] | undefined;
      if (!required?.includes('cnpj') || webhook.properties?.chave) return false;
      webhook.required = required.filter((name) => name !== 'cnpj');
      webhook.properties.chave = { type: 'string', maxLength: 77 };
      webhook.anyOf = [{ required: ['chave'] }, { required: ['cnpj'] }];
      return true;
    },
  },
  {
    what: "DadosRecebedor.required lists the receiver's address (`logradouro`, `cidade`, `uf`, `cep`) at the charge's root, where its own allOf requires them inside `recebedor`: read inside `recebedor` only",
    apply: (doc) => {
      const receiver = doc.components.schemas.DadosRecebedor;
      const required = receiver?.required as string[] | undefined;
      if (!required?.includes('logradouro') || receiver.properties?.logradouro) return false;
      delete receiver.required;
      return true;
    },
  },
  {
    what: "RecBase.required lists `retentativa`, a property no recurrence schema has (the policy is RecConfiguracao's `politicaRetentativa`, and the standard's own examples have no `retentativa`): read as not required",
    apply: (doc) => {
      const base = doc.components.schemas.RecBase;
      const required = base?.required as string[] | undefined;
      if (!required?.includes('retentativa') || base.properties?.retentativa) return false;
      base.required = required.filter((name) => name !== 'retentativa');
      return true;
    },
  },
  {
    what: "DadosPagadorRec.required lists `ispbParticipante` at the recurrence's root, where its property is `pagador.ispbParticipante`: read inside `pagador`",
    apply: (doc) => {
      const payer = doc.components.schemas.DadosPagadorRec;
      const required = payer?.required as string[] | undefined;
      if (!required?.includes('ispbParticipante') || payer.properties?.ispbParticipante) return false;
      delete payer.required;
      payer.properties.pagador.required = ['ispbParticipante'];
      return true;
    },
  },
  {
    what: 'Some patterns are written as JavaScript literals (`/^\\d{11}$/`, a CPF, a municipality code), which no value matches: read without the slashes',
    apply: (doc) => {
      let found = false;
      const visit = (node: unknown): void => {
        if (!node || typeof node !== 'object') return;
        const record = node as Record<string, unknown>;
        const pattern = record.pattern;
        if (typeof pattern === 'string' && /^\/\^.*\$\/$/.test(pattern)) {
          record.pattern = pattern.slice(1, -1);
          found = true;
        }
        Object.values(record).forEach(visit);
      };
      visit(doc.components);
      return found;
    },
  },
  {
    what: "A recurrence's and a recurring charge's `encerramento` is oneOf a rejection and a cancellation that each require nothing, so every value matches both and none passes: read each as requiring its own field",
    apply: (doc) => {
      const endings = [
        doc.components.schemas.RecEncerramento?.properties?.encerramento,
        doc.components.schemas.CobRAtualizacao?.properties?.encerramento,
      ] as Array<{ oneOf?: Array<{ properties?: Record<string, unknown>; required?: string[] }> } | undefined>;
      const slipped = endings.filter((e) => e?.oneOf?.every((alt) => !alt.required && alt.properties));
      for (const ending of slipped) for (const alt of ending!.oneOf!) alt.required = Object.keys(alt.properties!);
      return slipped.length === endings.length;
    },
  },
  {
    what: "PixAutomatico.valor is a string with a pattern and also anyOf the value's component objects (`original`, `juros`, ...), which no string matches: read as the string",
    apply: (doc) => {
      const valor = doc.components.schemas.PixAutomatico?.properties?.valor as
        { type?: string; anyOf?: unknown[] } | undefined;
      if (valor?.type !== 'string' || !valor.anyOf) return false;
      delete valor.anyOf;
      return true;
    },
  },
];

/** The document as published (no patch). */
export function readPixOpenApi(): OpenApiDocument {
  return parse(readFileSync(PIX_OPENAPI_FILE, 'utf8')) as OpenApiDocument;
}

/** The document with every patch applied; throws when a patch no longer finds its slip (drop the patch). */
export function loadPixOpenApi(): OpenApiDocument {
  const doc = readPixOpenApi();
  for (const patch of PIX_OPENAPI_PATCHES) {
    if (!patch.apply(doc))
      throw new Error(`The Pix OpenAPI patch no longer finds its slip (the release fixed it?): ${patch.what}`);
  }
  return doc;
}

/**
 * A validator of the patched document's components: `problems('Pix', value)` lists what breaks
 * `#/components/schemas/Pix` (a request body by `requestBodies/<name>`). OpenAPI 3.0's `nullable`
 * is read as JSON Schema's null type. `patched` false: the document as published.
 */
export function pixOpenApiValidator(patched = true): (component: string, value: unknown) => string[] {
  const doc = patched ? loadPixOpenApi() : readPixOpenApi();
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'pix-api', components: doc.components });
  return (component, value) => {
    const path = component.includes('/') ? component : `schemas/${component}`;
    const validate = ajv.getSchema(`pix-api#/components/${path}`);
    if (!validate) throw new Error(`No component ${path} in the Pix OpenAPI document`);
    return validate(value)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`);
  };
}
