import dns from 'node:dns';

/** Region and dummy credentials for SDK clients pointed at local servers. */
export const LOCAL_AWS = {
  region: 'us-east-1',
  accountId: '000000000000',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
} as const;

/** The id (ARN) a stack of this name has locally. */
export function localStackId(stackName: string): string {
  return `arn:aws:cloudformation:${LOCAL_AWS.region}:${LOCAL_AWS.accountId}:stack/${stackName}/00000000-0000-4000-8000-000000000000`;
}

/** The environment a function process needs to reach local AWS endpoints with the real SDK. */
export function localAwsEnvironment(
  endpoints: Partial<
    Record<'SQS' | 'DYNAMODB' | 'SECRETS_MANAGER' | 'EVENTBRIDGE' | 'SSM' | 'CLOUDFORMATION' | 'S3', string>
  >,
): Record<string, string> {
  const env: Record<string, string> = {
    AWS_REGION: LOCAL_AWS.region,
    AWS_DEFAULT_REGION: LOCAL_AWS.region,
    AWS_ACCESS_KEY_ID: LOCAL_AWS.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_AWS.credentials.secretAccessKey,
  };
  for (const [service, url] of Object.entries(endpoints)) if (url) env[`AWS_ENDPOINT_URL_${service}`] = url;
  return env;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * fauxqs' queue URLs are http://sqs.<region>.localhost:<port>/..., and not every resolver
 * resolves *.localhost. Patches dns.lookup so those names resolve to 127.0.0.1 (what RFC 6761
 * asks of them). Returns a function that restores the original.
 */
export function resolveLocalhostSubdomains(): () => void {
  const original = dns.lookup;
  const patched = (hostname: string, options: unknown, callback?: unknown): void => {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as dns.LookupOptions;
    if (hostname.endsWith('.localhost')) {
      if (opts.all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
      else cb(null, '127.0.0.1', 4);
      return;
    }
    (original as (...args: unknown[]) => void)(hostname, options, callback);
  };
  (dns as { lookup: unknown }).lookup = patched;
  return () => {
    (dns as { lookup: unknown }).lookup = original;
  };
}
