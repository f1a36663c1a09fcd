/** The Pix API's own domain with mutual TLS: its props (the truststore, the pinned certificates) and their check. */
import { readFileSync } from 'node:fs';
import { Token } from 'aws-cdk-lib';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as route53 from 'aws-cdk-lib/aws-route53';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { PropsValidation } from '../../core/props-validation';

/**
 * The Pix API's truststore: the provider's issuing chain (PEM certificates in one file; chain
 * depth 4 at most, RSA-2048 / ECDSA-256 or stronger). Either a file in the app, uploaded as an
 * asset (a changed file is a new object: a rotation is a deploy), or an existing object.
 */
export interface PixTruststoreProps {
  /** Path of the PEM bundle in the app. @default - the object `bucket` and `key` name */
  readonly file?: string;
  /** The bucket holding the bundle (versioned, so a rotation is a new version). @default - `file` */
  readonly bucket?: s3.IBucket;
  /** The bundle's key in `bucket`. @default - `file` */
  readonly key?: string;
  /**
   * The object's version: a rotation is a new version and a deploy naming it (API Gateway reads the
   * truststore when the domain is created or updated, never by itself).
   * @default - the object's latest version at the domain's last update
   */
  readonly version?: string;
}

/** The provider's client certificate the Pix route accepts: one of these SHA-256 fingerprints or subjects. */
export interface PixPinnedCertificates {
  /**
   * SHA-256 fingerprints of the provider's leaf certificate (hex, colons allowed), at most two:
   * the current one and its renewal. @default none
   */
  readonly fingerprints?: string[];
  /** Subject DNs as API Gateway writes them (`CN=...,O=...`). @default none */
  readonly subjects?: string[];
  /**
   * The issuer DNs (`CN=...,O=...`, any order) a subject pin is held to: a certificate with a
   * pinned subject is accepted only when its issuer, read from the certificate, is one of these.
   * Without it a subject pin admits that subject from any CA in the truststore (synth warns).
   * @default none: subject pins alone
   */
  readonly issuers?: string[];
}

/**
 * The Pix API's own regional custom domain with mutual TLS (cdk-bank-webhooks/docs/pix.md): the API's default
 * `execute-api` endpoint is disabled, so no caller can skip the handshake.
 */
export interface PixDomainProps {
  /** The domain, such as `pix-webhooks.example.com`: apart from the receiver's `domainName`. */
  readonly domainName: string;
  /** A public ACM certificate for `domainName`, in the stack's region. */
  readonly certificate: acm.ICertificate;
  /** The provider's issuing chain. */
  readonly truststore: PixTruststoreProps;
  /** The provider's leaf certificate, pinned: a chain to a public CA admits anyone holding one. */
  readonly pinnedCertificates: PixPinnedCertificates;
  /**
   * A Route 53 zone to hold the domain's alias record.
   * @default - none: the stack outputs the target to point the name at (`PixDomainTarget`)
   */
  readonly hostedZone?: route53.IHostedZone;
}

/** A fingerprint in the form the receiver compares: 64 lower-case hex digits. */
export const normalizedFingerprint = (fingerprint: string): string => fingerprint.replace(/[:\s]/g, '').toLowerCase();

/** Checks the Pix domain's props under `prefix`. */
export function validatePixDomain(v: PropsValidation, domain: PixDomainProps | undefined, prefix: string): void {
  if (!domain) return;
  if (!Token.isUnresolved(domain.domainName)) {
    v.check(
      /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(domain.domainName ?? ''),
      `${prefix}.domainName`,
      `must be a DNS name such as pix-webhooks.example.com, got "${domain.domainName}"`,
    );
  }
  v.check(
    !!domain.certificate,
    `${prefix}.certificate`,
    "is required: a public ACM certificate for the domain, in the stack's region",
  );
  const t = domain.truststore ?? {};
  const object = t.bucket !== undefined || t.key !== undefined;
  v.check(
    !!t.file !== object,
    `${prefix}.truststore`,
    'must name a file in the app (file) or an existing object (bucket and key), one of them',
  );
  v.check(
    !object || (t.bucket !== undefined && !!t.key),
    `${prefix}.truststore`,
    'needs both bucket and key for an existing object',
  );
  v.check(
    t.version === undefined || object,
    `${prefix}.truststore.version`,
    'applies to an existing object (bucket and key) only',
  );
  if (t.file) checkTruststoreFile(v, t.file, `${prefix}.truststore.file`);
  const pins = domain.pinnedCertificates ?? {};
  const fingerprints = pins.fingerprints ?? [];
  const subjects = pins.subjects ?? [];
  v.check(
    fingerprints.length + subjects.length > 0,
    `${prefix}.pinnedCertificates`,
    "must pin the provider's certificate by a fingerprint or a subject: its issuing chain alone admits any certificate the same CA issued",
  );
  v.check(
    fingerprints.length <= 2,
    `${prefix}.pinnedCertificates.fingerprints`,
    `takes at most two (the current certificate and its renewal), got ${fingerprints.length}`,
  );
  fingerprints.forEach((f, i) => {
    const hex = normalizedFingerprint(f);
    v.check(
      /^[0-9a-f]{64}$/.test(hex),
      `${prefix}.pinnedCertificates.fingerprints[${i}]`,
      /^[0-9a-f]{40}$/.test(hex)
        ? `is a SHA-1 fingerprint (40 hex digits), got "${f}": pin the SHA-256 one, which \`openssl x509 -noout -fingerprint -sha256 -in <provider certificate>.pem\` prints (openssl prints SHA-1 without -sha256)`
        : `must be a SHA-256 fingerprint (64 hex digits, colons allowed), got "${f}": \`openssl x509 -noout -fingerprint -sha256 -in <provider certificate>.pem\` prints it`,
    );
  });
  const issuers = pins.issuers;
  if (issuers !== undefined) {
    v.check(
      subjects.length > 0,
      `${prefix}.pinnedCertificates.issuers`,
      'holds subject pins to their issuer: it needs subjects',
    );
    issuers.forEach((s, i) =>
      v.check(
        s.trim().length > 0 && s.length <= 1024 && s.includes('='),
        `${prefix}.pinnedCertificates.issuers[${i}]`,
        'must be an issuer DN such as CN=Provider CA,O=Provider',
      ),
    );
  }
  subjects.forEach((s, i) =>
    v.check(
      s.trim().length > 0 && s.length <= 1024,
      `${prefix}.pinnedCertificates.subjects[${i}]`,
      'must be a subject DN such as CN=webhook.provider.example,O=Provider',
    ),
  );
}

/**
 * A truststore file must hold at least one PEM certificate (`-----BEGIN CERTIFICATE-----`): API
 * Gateway reads nothing else, and a DER file or a key would fail the domain at deploy time, or
 * later. Checked at synth, naming the file and the fix.
 */
function checkTruststoreFile(v: PropsValidation, file: string, prop: string): void {
  let text: string;
  try {
    text = readFileSync(file, 'latin1');
  } catch (error) {
    v.check(
      false,
      prop,
      `cannot be read ("${file}": ${(error as NodeJS.ErrnoException).code ?? String(error)}): give the path of the provider's issuing chain, PEM, relative to where cdk runs`,
    );
    return;
  }
  const certificates = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  v.check(
    certificates.length > 0,
    prop,
    `must hold at least one PEM certificate (-----BEGIN CERTIFICATE-----), and "${file}" holds none: convert a DER file with \`openssl x509 -inform der -in <file> -out <file>.pem\`, and put the provider's whole issuing chain in it`,
  );
  v.check(
    !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text),
    prop,
    `holds a private key ("${file}"): a truststore holds only the provider's CA certificates; remove the key (and rotate it: it was about to be uploaded)`,
  );
}
