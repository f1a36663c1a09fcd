/**
 * What each registration's last successful deploy applied at the bank (contracts/registration.ts
 * `AppliedRegistration`), one SSM parameter each: the provider writes it after a Create or Update
 * the bank confirmed and removes it on Delete; the registration watch reads it and compares the
 * bank with it. It holds no secret (the token by secret ARN and version id), so a String parameter.
 */
import { DeleteParameterCommand, GetParameterCommand, PutParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { isErrorNamed } from '../shared/runtime';
import { type AppliedRegistration, RegistrationResourceType } from '../../contracts/registration';

export interface AppliedRegistrations {
  /** The record, or undefined when none was written (or it is not one this library writes). */
  read(name: string): Promise<AppliedRegistration | undefined>;
  write(name: string, record: AppliedRegistration): Promise<void>;
  /** Removes the record; one that is not there is fine. */
  remove(name: string): Promise<void>;
}

const isNotFound = (error: unknown) => isErrorNamed(error, 'ParameterNotFound');

/**
 * The record a parameter holds, checked: a value that is not a record of this library (edited by
 * hand, another format) is reported as such and treated as no record, so nothing is repaired to it.
 */
export function parseAppliedRegistration(text: string, name: string): AppliedRegistration {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`The SSM parameter ${name} is not JSON: it is not a record the registration provider wrote`);
  }
  const r = parsed as Partial<AppliedRegistration> | null;
  const problems: string[] = [];
  if (!r || typeof r !== 'object') problems.push('not an object');
  else {
    if (r.format !== 1) problems.push(`format ${String(r.format)} (this version reads 1)`);
    if (!Object.values(RegistrationResourceType).includes(r.resourceType as RegistrationResourceType))
      problems.push('resourceType');
    if (typeof r.appliedAt !== 'string' || Number.isNaN(Date.parse(r.appliedAt))) problems.push('appliedAt');
    if (!r.spec || typeof r.spec !== 'object' || typeof r.spec.url !== 'string') problems.push('spec');
    if (r.tokenVersionId !== undefined && typeof r.tokenVersionId !== 'string') problems.push('tokenVersionId');
  }
  if (problems.length)
    throw new Error(
      `The SSM parameter ${name} is not a record the registration provider wrote (${problems.join(', ')}): deploy a registration change to write it again`,
    );
  return r as AppliedRegistration;
}

export class SsmAppliedRegistrations implements AppliedRegistrations {
  constructor(private readonly ssm: SSMClient) {}

  async read(name: string): Promise<AppliedRegistration | undefined> {
    try {
      const answer = await this.ssm.send(new GetParameterCommand({ Name: name }));
      return answer.Parameter?.Value ? parseAppliedRegistration(answer.Parameter.Value, name) : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async write(name: string, record: AppliedRegistration): Promise<void> {
    await this.ssm.send(
      new PutParameterCommand({
        Name: name,
        Value: JSON.stringify(record),
        Type: 'String',
        Overwrite: true,
        Tier: 'Standard',
        Description:
          'What the last deploy applied at the bank (cdk-bank-webhooks); the registration watch compares the bank with it',
      }),
    );
  }

  async remove(name: string): Promise<void> {
    try {
      await this.ssm.send(new DeleteParameterCommand({ Name: name }));
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
