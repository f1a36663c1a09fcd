import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackServer, readRequestBody } from './json-protocol-server';

interface StoredObject {
  readonly body: Buffer;
  readonly contentType: string;
  readonly modified: Date;
}

const xmlEscape = (text: string): string => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A local endpoint that speaks S3's REST protocol, path style, for what the handlers and tools
 * call: CreateBucket, PutObject (with `If-None-Match: *`), GetObject, HeadObject and
 * ListObjectsV2 by prefix (and delimiter). It lets the local runner and `npm run demo` keep needing nothing but
 * `npm ci`; the journal's own tests run against moto's server (tools/local-aws/moto.ts), which is
 * faithful where this is not (versioning, Object Lock, encryption). Loopback only.
 */
export class LocalS3 extends LoopbackServer {
  private readonly buckets = new Map<string, Map<string, StoredObject>>();

  constructor() {
    super('S3');
  }

  createBucket(name: string): void {
    if (!this.buckets.has(name)) this.buckets.set(name, new Map());
  }

  /** The keys of `bucket` under `prefix`, in order. */
  keys(bucket: string, prefix = ''): string[] {
    return [...(this.buckets.get(bucket)?.keys() ?? [])].filter((key) => key.startsWith(prefix)).sort();
  }

  /** An object's body as text, if it exists. */
  text(bucket: string, key: string): string | undefined {
    return this.buckets.get(bucket)?.get(key)?.body.toString('utf8');
  }

  protected async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readRequestBody(req);
    const url = new URL(req.url ?? '/', 'http://local');
    const [bucketName, ...rest] = url.pathname.slice(1).split('/');
    const key = decodeURIComponent(rest.join('/'));
    const error = (status: number, code: string, message: string): void => {
      res.writeHead(status, { 'Content-Type': 'application/xml' });
      res.end(
        req.method === 'HEAD'
          ? undefined
          : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error>`,
      );
    };
    if (req.method === 'PUT' && !key) {
      this.createBucket(bucketName);
      res.writeHead(200).end();
      return;
    }
    const bucket = this.buckets.get(bucketName);
    if (!bucket) return error(404, 'NoSuchBucket', `The specified bucket ${bucketName} does not exist`);
    if (req.method === 'GET' && !key) return this.list(bucket, bucketName, url, res);
    const held = bucket.get(key);
    if (req.method === 'PUT') {
      if (req.headers['if-none-match'] === '*' && held)
        return error(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
      bucket.set(key, {
        body: decodeBody(body, req),
        contentType: String(req.headers['content-type'] ?? 'binary/octet-stream'),
        modified: new Date(),
      });
      res.writeHead(200, { ETag: '"local"' }).end();
      return;
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (!held) return error(404, 'NoSuchKey', 'The specified key does not exist.');
      res.writeHead(200, {
        'Content-Type': held.contentType,
        'Content-Length': held.body.length,
        'Last-Modified': held.modified.toUTCString(),
      });
      res.end(req.method === 'GET' ? held.body : undefined);
      return;
    }
    error(405, 'MethodNotAllowed', `${req.method} is not supported by the local S3`);
  }

  private list(bucket: Map<string, StoredObject>, name: string, url: URL, res: ServerResponse): void {
    const prefix = url.searchParams.get('prefix') ?? '';
    const delimiter = url.searchParams.get('delimiter') ?? '';
    const max = Math.min(1000, Number(url.searchParams.get('max-keys') ?? 1000));
    const after = url.searchParams.get('continuation-token') ?? url.searchParams.get('start-after') ?? '';
    // With a delimiter, the keys that hold it after the prefix roll up into one common prefix each.
    const entries = new Set<string>();
    for (const key of bucket.keys()) {
      if (!key.startsWith(prefix)) continue;
      const at = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
      entries.add(at < 0 ? key : key.slice(0, at + delimiter.length));
    }
    const listed = [...entries].filter((entry) => entry > after).sort();
    const page = listed.slice(0, max);
    const truncated = listed.length > page.length;
    const contents = page
      .filter((entry) => bucket.has(entry))
      .map(
        (key) =>
          `<Contents><Key>${xmlEscape(key)}</Key><LastModified>${bucket.get(key)!.modified.toISOString()}</LastModified><Size>${bucket.get(key)!.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
      )
      .join('');
    const common = page
      .filter((entry) => !bucket.has(entry))
      .map((entry) => `<CommonPrefixes><Prefix>${xmlEscape(entry)}</Prefix></CommonPrefixes>`)
      .join('');
    res.writeHead(200, { 'Content-Type': 'application/xml' });
    res.end(
      `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>${xmlEscape(name)}</Name><Prefix>${xmlEscape(prefix)}</Prefix>${delimiter ? `<Delimiter>${xmlEscape(delimiter)}</Delimiter>` : ''}<KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${common}${truncated ? `<NextContinuationToken>${xmlEscape(page[page.length - 1])}</NextContinuationToken>` : ''}</ListBucketResult>`,
    );
  }
}

/** The body as sent: `aws-chunked` bodies (the SDK's streaming checksums) unwrapped. */
function decodeBody(raw: Buffer, req: IncomingMessage): Buffer {
  if (!String(req.headers['content-encoding'] ?? '').includes('aws-chunked')) return raw;
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(raw.subarray(at, lineEnd).toString('latin1').split(';')[0], 16);
    if (!size) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
