/**
 * What `trace <argument>` looks for, the likeliest first: each kind's rules guess their own ids
 * (SubjectRules.guessIds), so a family's kinds are traced without a line in the CLI.
 */
import { candidateSubjects } from '../../cli/operate/trace';
import { PaymentKind } from '../../contracts/events';
import type { OperatorManifest } from '../../contracts/operations';
import { CliExit } from '../../contracts/operations';

const manifest = { codigoBeneficiario: '54321' } as OperatorManifest;
const payments = (id: string) => Object.values(PaymentKind).map((kind) => `payment:${kind}:${id}`);

it("reads a nossoNumero as a boleto only, zero-padded, unless a payment's kind is given", () => {
  expect(candidateSubjects('1003', manifest)).toEqual(['boleto:54321:000001003']);
  expect(candidateSubjects('1003', manifest, PaymentKind.PIX)).toEqual(['payment:pix:1003']);
});

it('puts a Pix received first for an end-to-end id, and after the payments for any other id', () => {
  const e2e = 'E01181521202611021800abcdefghijk';
  expect(candidateSubjects(e2e, manifest)).toEqual([`pix:${e2e}`, ...payments(e2e)]);
  expect(candidateSubjects('tx42abc', manifest)).toEqual([...payments('tx42abc'), 'pix:tx42abc']);
  expect(candidateSubjects('tx-42:a', manifest)).toEqual(payments('tx-42:a'));
  expect(candidateSubjects(e2e, manifest, PaymentKind.BOLETO)).toEqual([`payment:boleto:${e2e}`]);
});

it('takes a subject id as it is, and refuses what no kind can be, saying what it takes', () => {
  expect(candidateSubjects('pix-refund:E1:D1', manifest)).toEqual(['pix-refund:E1:D1']);
  expect(() => candidateSubjects('a.b', manifest)).toThrow(
    expect.objectContaining({
      exit: CliExit.USAGE,
      message: expect.stringMatching(/^"a\.b" is neither a nossoNumero \(up to 9 digits\), an idTransacao/),
    }),
  );
});
