/**
 * The bank's error answers. Its error bodies are not consistent (cdk-bank-webhooks/docs/bank-api.md), and the
 * simulator reproduces that on purpose, one shape per part of the API, so that clients learn to
 * read every one of them:
 *
 * | part | shape |
 * |---|---|
 * | token endpoints | `{"error": "...", "error_description": "..."}` |
 * | API gateway (bearer token, scope, x-api-key, 429) | `{"message": "..."}` |
 * | collection API (contracts, boleto query) | `{"mensagens": [{"codigo": "...", "mensagem": "..."}]}` |
 * | payments API: account headers, not found | `{"erros": [{"codigo": "...", "mensagem": "..."}]}` |
 * | payments API: body validation | `{"errors": [{"field": "...", "message": "..."}]}` |
 * | injected 5xx | `{"mensagem": "..."}` |
 * | control API | `{"error": "..."}` |
 */
/** A body that is an HTML page, not JSON (what a proxy or a maintenance page answers). */
export class HtmlPage {
  constructor(readonly html: string) {}
}

export class BankError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`HTTP ${status}: ${JSON.stringify(body)}`);
    this.name = 'BankError';
  }
}

export const oauthError = (status: number, error: string, description: string) =>
  new BankError(status, { error, error_description: description });

export const gatewayError = (status: number, message: string, headers?: Record<string, string>) =>
  new BankError(status, { message }, headers);

export const collectionError = (status: number, codigo: string, mensagem: string) =>
  new BankError(status, { mensagens: [{ codigo, mensagem }] });

export const paymentsError = (status: number, codigo: string, mensagem: string) =>
  new BankError(status, { erros: [{ codigo, mensagem }] });

export const validationErrors = (status: number, problems: { field: string; message: string }[]) =>
  new BankError(status, { errors: problems });

export const serviceError = (status: number, mensagem: string, headers?: Record<string, string>) =>
  new BankError(status, { mensagem }, headers);

export const controlError = (status: number, message: string) => new BankError(status, { error: message });
