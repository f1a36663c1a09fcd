/** The one place secrets are masked: every form a value can travel in, and secret fields by name. */
import { REDACTED, SecretRedactor, secretForms } from '../../../lambda/shared/redaction';

const NASTY = 'p+a/s=s"w&o%rd é';

it('masks a value raw, URL- and form-encoded, JSON-escaped (once and twice) and in base64', () => {
  const r = new SecretRedactor();
  r.remember(NASTY);
  for (const form of secretForms(NASTY)) expect(r.redact(`before ${form} after`)).toBe(`before ${REDACTED} after`);
  expect(secretForms(NASTY)).toEqual(
    expect.arrayContaining([
      NASTY,
      encodeURIComponent(NASTY),
      'p%2Ba%2Fs%3Ds%22w%26o%25rd+%C3%A9',
      JSON.stringify(NASTY).slice(1, -1),
      Buffer.from(NASTY).toString('base64'),
    ]),
  );
});

it('masks the value of secret fields by name, whatever the value: form bodies, JSON, escaped JSON, headers', () => {
  const r = new SecretRedactor();
  expect(r.redact('grant_type=password&username=5432101&password=unknown-1&scope=cobranca')).toBe(
    `grant_type=password&username=5432101&password=${REDACTED}&scope=cobranca`,
  );
  expect(r.redact('client_id=abc&client_secret=s3cr3t')).toBe(`client_id=abc&client_secret=${REDACTED}`);
  expect(r.redact('{"urlCallback":"https://x/payments","authorizationCallback":"tok \\" en"}')).toBe(
    `{"urlCallback":"https://x/payments","authorizationCallback":"${REDACTED}"}`,
  );
  expect(r.redact('{\\"token\\":\\"abc\\",\\"header\\":\\"X\\"}')).toBe(
    `{\\"token\\":\\"${REDACTED}\\",\\"header\\":\\"X\\"}`,
  );
  expect(r.redact('{"authorization":"Bearer eyJhbGciOi.x.y","x-api-key":"k-123"}')).toBe(
    `{"authorization":"${REDACTED}","x-api-key":"${REDACTED}"}`,
  );
  expect(r.redact('Authorization: Basic dXNlcjpwYXNz')).toBe(`Authorization: ${REDACTED}`);
  // Names that merely contain a secret field's name stay readable.
  expect(r.redact('{"tokenVersion":"3","authorizationCallbackUrl":"x"}')).toBe(
    '{"tokenVersion":"3","authorizationCallbackUrl":"x"}',
  );
});

it('ignores values too short to mask safely, and masks a longer value before the shorter one it contains', () => {
  const r = new SecretRedactor();
  r.remember('abc', '', undefined, 42, 'secret', 'secret-longer');
  expect(r.redact('abc secret secret-longer')).toBe(`abc ${REDACTED} ${REDACTED}`);
});
