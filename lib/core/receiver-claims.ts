import { Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { BankAccount } from '../../contracts/bank-connection';

/** What each receiver of a stack claims: its bank account (by what the bank keys registrations by) and its metrics' name. */
const claims = new WeakMap<Stack, Map<string, string>>();

/**
 * Records that the receiver at `scope` (its processor) receives `account` and names its metrics
 * `receiverName`; throws when another receiver of the same stack claimed either first. Two
 * receivers of one bank account register over each other at the bank and verify and publish each
 * settlement twice; two of one name share their metrics and trip each other's alarms.
 */
export function claimReceiver(scope: Construct, account: BankAccount, receiverName: string): void {
  const stack = Stack.of(scope);
  let held = claims.get(stack);
  if (!held) claims.set(stack, (held = new Map<string, string>()));
  const literal = (...values: string[]) =>
    values.every((value) => typeof value === 'string' && !Token.isUnresolved(value));
  const wanted: Array<[string, string]> = [];
  if (literal(account.cooperativa, account.conta))
    wanted.push([
      `account:${account.cooperativa}/${account.conta}`,
      `bank account (cooperativa ${account.cooperativa}, conta ${account.conta})`,
    ]);
  if (literal(account.cooperativa, account.posto, account.codigoBeneficiario)) {
    wanted.push([
      `beneficiary:${account.cooperativa}/${account.posto}/${account.codigoBeneficiario}`,
      `beneficiary (cooperativa ${account.cooperativa}, posto ${account.posto}, beneficiário ${account.codigoBeneficiario})`,
    ]);
  }
  if (literal(receiverName)) wanted.push([`name:${receiverName}`, `receiverName "${receiverName}"`]);
  for (const [key, what] of wanted) {
    const other = held.get(key);
    if (other && other !== scope.node.path) {
      throw new Error(
        `${scope.node.path}: the ${what} is already taken by the receiver at ${other} in stack ${stack.stackName}. ` +
          (key.startsWith('name:')
            ? "Two receivers with one name share their metrics and trip each other's alarms: give each its own receiverName."
            : 'Two receivers of one bank account register over each other at the bank and publish each settlement twice: keep one receiver per bank account in a stack (a staging receiver goes in a stack of its own, stage NON_PRODUCTION).'),
      );
    }
  }
  for (const [key] of wanted) held.set(key, scope.node.path);
}

/** The receiver of each account's keyless Pix, per app (by the account and the Pix provider's URL). */
const keylessOwners = new WeakMap<object, Map<string, string>>();

/**
 * Records that the receiver at `scope` is its account's receiver for keyless Pix (those the
 * provider ties to no key); throws when another receiver of the same app claimed the same account
 * at the same provider first: both would publish each such Pix. A value known only at deploy is
 * not compared.
 */
export function claimKeylessPix(scope: Construct, account: BankAccount, pixBaseUrl: string): void {
  const root = scope.node.root;
  const values = [account.cooperativa, account.conta, pixBaseUrl];
  if (!values.every((value) => typeof value === 'string' && !Token.isUnresolved(value))) return;
  let held = keylessOwners.get(root);
  if (!held) keylessOwners.set(root, (held = new Map<string, string>()));
  const key = `${account.cooperativa}/${account.conta}@${pixBaseUrl.replace(/\/+$/, '').toLowerCase()}`;
  const other = held.get(key);
  if (other && other !== scope.node.path) {
    throw new Error(
      `${scope.node.path}: pix.keylessPix is true, but the receiver at ${other} is already the keyless Pix receiver of this account ` +
        `(cooperativa ${account.cooperativa}, conta ${account.conta}) at ${pixBaseUrl}: both would publish each Pix the provider ties to no key. ` +
        'Keep pix.keylessPix on one receiver per account and leave it out on the others.',
    );
  }
  held.set(key, scope.node.path);
}
