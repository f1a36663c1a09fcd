import { randomUUID } from 'node:crypto';
import { JsonProtocolServer, ServiceError } from './json-protocol-server';

interface Version {
  readonly id: string;
  readonly value: string;
  readonly stages: Set<string>;
}

/** Moves AWSCURRENT to `target`; the version that held it becomes AWSPREVIOUS. */
function makeCurrent(versions: Version[], target: Version): void {
  const current = versions.find((v) => v.stages.has('AWSCURRENT'));
  if (current === target) return;
  for (const version of versions) version.stages.delete('AWSPREVIOUS');
  if (current) {
    current.stages.delete('AWSCURRENT');
    current.stages.add('AWSPREVIOUS');
  }
  target.stages.add('AWSCURRENT');
}

/**
 * A local endpoint that speaks the Secrets Manager JSON protocol (awsJson1_1) for the calls the
 * handlers make, with versions and staging labels, so the real `@aws-sdk/client-secrets-manager`
 * can be pointed at it (`AWS_ENDPOINT_URL_SECRETS_MANAGER`). Loopback only; not a security
 * boundary. Supports GetSecretValue (by ARN, partial ARN or name, with VersionStage or VersionId); tests
 * change values and stages with putValue() and finishRotation().
 */
export class LocalSecretsManager extends JsonProtocolServer {
  private readonly secrets = new Map<string, { arn: string; name: string; versions: Version[] }>();

  constructor(
    private readonly region = 'us-east-1',
    private readonly account = '000000000000',
  ) {
    super('secretsmanager', 'Secrets Manager');
  }

  /** Creates a secret with an AWSCURRENT value; returns its ARN. */
  createSecret(name: string, value: string): string {
    const arn = `arn:aws:secretsmanager:${this.region}:${this.account}:secret:${name}-${randomUUID().slice(0, 6)}`;
    this.secrets.set(arn, { arn, name, versions: [{ id: randomUUID(), value, stages: new Set(['AWSCURRENT']) }] });
    return arn;
  }

  /** Adds a version holding the given stages (moving them off older versions, as the service does). */
  putValue(secretId: string, value: string, stages: string[]): void {
    const secret = this.find(secretId);
    if (!secret) throw new Error(`No secret ${secretId}`);
    const version = { id: randomUUID(), value, stages: new Set(stages.filter((stage) => stage !== 'AWSCURRENT')) };
    for (const older of secret.versions) for (const stage of version.stages) older.stages.delete(stage);
    secret.versions.push(version);
    if (stages.includes('AWSCURRENT')) makeCurrent(secret.versions, version);
  }

  /** The AWSCURRENT value of a secret (by ARN, partial ARN or name), if there is one. */
  currentValue(secretId: string): string | undefined {
    return this.find(secretId)?.versions.find((v) => v.stages.has('AWSCURRENT'))?.value;
  }

  /** Completes a rotation: AWSPENDING becomes AWSCURRENT and the old current AWSPREVIOUS. */
  finishRotation(secretId: string): void {
    const pending = this.find(secretId)?.versions.find((v) => v.stages.has('AWSPENDING'));
    if (!pending) throw new Error(`No rotation in progress for ${secretId}`);
    pending.stages.delete('AWSPENDING');
    makeCurrent(this.find(secretId)!.versions, pending);
  }

  /**
   * A secret by full ARN, by name, or by partial ARN (the ARN without the random suffix, which is
   * what `Secret.fromSecretNameV2` puts in a template), as the service finds them.
   */
  private find(secretId: string) {
    return (
      this.secrets.get(secretId) ??
      [...this.secrets.values()].find((s) => s.name === secretId || s.arn.slice(0, -7) === secretId)
    );
  }

  protected handle(operation: string, input: Record<string, unknown>): unknown {
    const secret = this.find(String(input.SecretId));
    if (!secret)
      throw new ServiceError(400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    if (operation === 'GetSecretValue') {
      const stage = input.VersionId
        ? undefined
        : typeof input.VersionStage === 'string'
          ? input.VersionStage
          : 'AWSCURRENT';
      const version = secret.versions.find((v) => (stage ? v.stages.has(stage) : v.id === input.VersionId));
      if (!version)
        throw new ServiceError(
          400,
          'ResourceNotFoundException',
          "Secrets Manager can't find the specified secret value for staging label: " + stage,
        );
      return {
        ARN: secret.arn,
        Name: secret.name,
        VersionId: version.id,
        SecretString: version.value,
        VersionStages: [...version.stages],
        CreatedDate: Date.now() / 1000,
      };
    }
    if (operation === 'PutSecretValue') {
      if (typeof input.SecretString !== 'string')
        throw new ServiceError(
          400,
          'InvalidParameterException',
          'SecretString is required here (SecretBinary is not supported locally).',
        );
      const stages = Array.isArray(input.VersionStages) ? input.VersionStages.map(String) : ['AWSCURRENT'];
      this.putValue(secret.arn, input.SecretString, stages);
      const version = secret.versions[secret.versions.length - 1];
      return { ARN: secret.arn, Name: secret.name, VersionId: version.id, VersionStages: [...version.stages] };
    }
    throw new ServiceError(
      400,
      'InvalidRequestException',
      `Operation ${operation || '(none)'} is not supported by the local Secrets Manager`,
    );
  }
}
