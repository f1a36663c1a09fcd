/** How every API family's client reads an HTTP answer: the JSON of a 2xx, or the provider's error in its own words. */
import { BankApiError, bankErrorMessage } from '../errors';
import { type HttpResponse, parseAnswer } from '../http';

/**
 * The JSON of a 2xx answer; any other status is the provider's error, its message read whatever
 * its shape, `hint` after it (what to set). An HTML or text page with a 2xx (a proxy, a maintenance
 * page) is not the API's answer: read as "nothing there", it would hide what is.
 */
export function apiAnswer(operation: string, response: HttpResponse, hint = ''): { status: number; body: unknown } {
  if (response.status < 200 || response.status >= 300) {
    throw new BankApiError(
      operation,
      response.status,
      `${bankErrorMessage(response.body) ?? 'no message in the answer'}${hint}`,
      false,
    );
  }
  const answer = parseAnswer(response);
  if (typeof answer === 'string') {
    const type = [response.headers['content-type']].flat()[0] ?? 'no content type';
    throw new BankApiError(
      operation,
      response.status,
      `the answer is not JSON (${type}): ${answer.replace(/\s+/g, ' ').slice(0, 80)}`,
      true,
    );
  }
  return { status: response.status, body: answer };
}

/** A token endpoint's answer as an object (200 only), for the token cache to keep. */
export function tokenAnswer(operation: string, response: HttpResponse): Record<string, unknown> {
  if (response.status !== 200)
    throw new BankApiError(
      operation,
      response.status,
      bankErrorMessage(response.body) ?? 'no message in the answer',
      false,
    );
  const answer = parseAnswer(response);
  if (!answer || typeof answer !== 'object')
    throw new BankApiError(operation, 200, 'the answer is not a JSON object', false);
  return answer as Record<string, unknown>;
}
