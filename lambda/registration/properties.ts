/** Reads the registration custom resource's properties (contracts/registration.ts), checked. */
import type { BankConnectionSettings } from '../../contracts/bank-connection';
import { type BoletoContractSpec, type PaymentWebhookSpec, RegistrationProperty, RegistrationResourceType } from '../../contracts/registration';
import { parseBankConnection } from '../shared/bank-connection';

const FIX = '(the construct sets it; redeploy rather than editing the template)';

function parseJsonProperty(properties: Record<string, unknown>, name: string): Record<string, unknown> {
  const raw = properties[name];
  if (typeof raw !== 'string') throw new Error(`The custom resource property ${name} is missing ${FIX}`);
  try {
    const value = JSON.parse(raw) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new Error(`The custom resource property ${name} is not a JSON object ${FIX}`);
}

function missingStrings(record: Record<string, unknown>, names: readonly string[]): string[] {
  return names.filter((name) => typeof record[name] !== 'string' || !record[name]);
}

function throwIfMissing(missing: readonly string[]): void {
  if (missing.length) throw new Error(`The custom resource property ${RegistrationProperty.SPEC} lacks ${missing.join(', ')} ${FIX}`);
}

export type RegistrationRequest =
  | { readonly kind: 'payment'; readonly bank: BankConnectionSettings; readonly spec: PaymentWebhookSpec }
  | { readonly kind: 'contract'; readonly bank: BankConnectionSettings; readonly spec: BoletoContractSpec };
/** The bank connection and the registration a custom resource event carries, checked. */
export function readRegistrationProperties(resourceType: string, properties: Record<string, unknown>): RegistrationRequest {
  const bank = parseBankConnection(properties[RegistrationProperty.BANK] as string | undefined, `The custom resource property ${RegistrationProperty.BANK}`);
  const spec = parseJsonProperty(properties, RegistrationProperty.SPEC);
  const type = resourceType as RegistrationResourceType;
  if (type === RegistrationResourceType.PAYMENT_WEBHOOK) {
    throwIfMissing(missingStrings(spec, ['url', 'tokenSecretArn']));
    return { kind: 'payment', bank, spec: spec as unknown as PaymentWebhookSpec };
  }
  if (type === RegistrationResourceType.BOLETO_CONTRACT) {
    const missing = missingStrings(spec, ['cooperativa', 'posto', 'codBeneficiario', 'url', 'urlStatus', 'contratoStatus']);
    if (!Array.isArray(spec.eventos) || spec.eventos.length === 0) missing.push('eventos');
    throwIfMissing(missing);
    return { kind: 'contract', bank, spec: spec as unknown as BoletoContractSpec };
  }
  throw new Error(`Unknown resource type ${resourceType}: this handler serves ${Object.values(RegistrationResourceType).join(' and ')}`);
}

