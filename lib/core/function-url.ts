/**
 * Whether a connection's URL is a Lambda function URL (a BankSandbox's): what every API family's
 * connection checks before a PRODUCTION receiver may use it.
 */
import { Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

const FUNCTION_URL_HOST = /\.lambda-url\.[a-z0-9-]+\.on\.aws(?::\d+)?(?:[/?#]|$)/i;

/** Whether a resolved value refers to a Lambda function URL: a `FunctionUrl` attribute, or a literal host of one. */
function refersToFunctionUrl(value: unknown): boolean {
  if (typeof value === 'string') return FUNCTION_URL_HOST.test(value);
  if (Array.isArray(value)) return value.some(refersToFunctionUrl);
  if (!value || typeof value !== 'object') return false;
  const getAtt = (value as Record<string, unknown>)['Fn::GetAtt'];
  if (Array.isArray(getAtt) && getAtt[1] === 'FunctionUrl') return true;
  return Object.values(value).some(refersToFunctionUrl);
}

/**
 * Which of `urls` (prop name to value) point at a Lambda function URL: a BankSandbox's in the same
 * app (however its connection was copied or its flags changed), or any literal
 * `*.lambda-url.<region>.on.aws` host. A URL from outside the app (a parameter, an import) cannot be seen.
 */
export function functionUrlProps(scope: Construct, urls: Readonly<Record<string, string | undefined>>): string[] {
  const stack = Stack.of(scope);
  return Object.entries(urls)
    .filter(([, url]) => url !== undefined && refersToFunctionUrl(Token.isUnresolved(url) ? stack.resolve(url) : url))
    .map(([name]) => name);
}
