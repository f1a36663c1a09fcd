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
