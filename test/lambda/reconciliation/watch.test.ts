/**
 * The registration watch against the bank simulator, with the records the provider bundle writes
 * at deploy time (a local SSM) and token versions in a local Secrets Manager: it compares the bank
 * with what the last deploy applied, in both directions, and repairs only to that, only in a
 * completed stack, never with a token a deploy would refuse, and not again once contested. The
 * stack's status is injected (the e2e over the local runner reads it with DescribeStacks).
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { RegistrationDrift, SweepMetric, type WatchFinding, WatchState } from '../../../contracts/reconciliation';
import type { AppliedRegistration } from '../../../contracts/registration';
import type { CooperativeClient } from '../../../lambda/bank/cooperative/client';
import { watchRegistrations } from '../../../lambda/reconciliation/watch';
import { cooperativeRegistrations } from '../../../lambda/bank/cooperative/registration/kinds';
import { loadAcceptedTokens, loadTokenVersion } from '../../../lambda/shared/secret-tokens';
import { SsmAppliedRegistrations } from '../../../lambda/store/applied-registrations';
import { SAMPLE_ACCOUNT } from '../../../simulator/simulator';
import type { LocalCustomResource } from '../../../tools/local-aws/custom-resource';
import { TEST_AWS } from '../../support/aws-env';
import { MemoryWatchStates } from '../../support/memory-records';
import {
  type ContractInput,
  type PaymentRegistrationInput,
  REGISTRATION_STACK_ID,
  RegistrationHarness,
} from '../../support/registration-harness';
import { captureOutput } from '../../support/load-handler';
import { RecordingLogger } from '../../support/recording-logger';

jest.setTimeout(60_000);

const URL_PAY = 'https://receiver.example.com/prod/payments';
const URL_BOLETO = 'https://receiver.example.com/prod/boleto';
const SOMEONE_ELSE = 'https://someone-else.example.net/hooks';

let h: RegistrationHarness;
let bank: CooperativeClient;
let secretsManager: SecretsManagerClient;
let records: SsmAppliedRegistrations;

beforeAll(async () => {
  h = await RegistrationHarness.start();
  bank = h.bankClient();
  secretsManager = new SecretsManagerClient({
    region: TEST_AWS.region,
    credentials: TEST_AWS.credentials,
    endpoint: h.secrets.endpoint,
  });
  records = new SsmAppliedRegistrations(
    new SSMClient({ region: TEST_AWS.region, credentials: TEST_AWS.credentials, endpoint: h.ssm.endpoint }),
  );
});
afterAll(async () => {
  secretsManager?.destroy();
  await h?.stop();
});

/** A stack with both registrations deployed, and the watch over them, its settings as the construct writes them. */
async function deployed(options: { repair?: boolean; takeOverExisting?: boolean } = {}) {
  const payment = h.paymentResource();
  const contract = h.contractResource();
  const paymentDeployment = h.paymentDeployment({ url: URL_PAY, takeOverExisting: options.takeOverExisting });
  const contractDeployment = h.contractDeployment({ url: URL_BOLETO, takeOverExisting: options.takeOverExisting });
  await payment.create(paymentDeployment.properties);
  await contract.create(contractDeployment.properties);
  const settings = {
    payment: paymentDeployment.watched,
    contracts: [{ ...contractDeployment.watched, label: 'boleto' }],
    repair: options.repair ?? true,
    stackId: REGISTRATION_STACK_ID,
  };
  const paymentRecord = settings.payment.appliedRecord;
  const contractRecord = settings.contracts[0].appliedRecord;
  expect(h.ssm.names('/cdk-bank-webhooks/applied/Registration/').sort()).toEqual(
    [contractRecord, paymentRecord].sort(),
  );
  const states = new MemoryWatchStates();
  const counted: Array<{ metric: string; details: Record<string, string> }> = [];
  let stackStatus = 'UPDATE_COMPLETE';
  let now = Date.now();
  // What the watch logs is kept (and checked for secrets), not printed.
  const log = new RecordingLogger();
  const watch = async () => {
    const captured = await captureOutput(() => watchOnce());
    return { result: captured.result, output: captured.output + log.text() };
  };
  const watchOnce = () =>
    watchRegistrations({
      settings,
      registrations: cooperativeRegistrations(() => bank, bank.settings),
      steps: {
        deadline: Date.now() + 30_000,
        tokenValue: () => Promise.reject(new Error('never asked')),
        log,
        sleep: () => Promise.resolve(),
      },
      readRecord: (name) => records.read(name),
      tokens: {
        version: async (arn, versionId) => (await loadTokenVersion(secretsManager, arn, { versionId }, 5_000))?.value,
        accepted: (arn) => loadAcceptedTokens(secretsManager, arn, 5_000),
      },
      states,
      stackStatus: async () => stackStatus,
      count: (metric, details) => counted.push({ metric, details }),
      now: () => now,
    });
  return {
    payment,
    contract,
    paymentRecord,
    contractRecord,
    states,
    counted,
    watch: async () => (await watch()).result,
    watchWithLog: watch,
    setStackStatus: (status: string) => {
      stackStatus = status;
    },
    advance: (ms: number) => {
      now += ms;
    },
    /** A deploy that changes the payment registration: its custom resource and the sweep's settings. */
    deployPayment: async (input: PaymentRegistrationInput) => {
      const next = h.paymentDeployment(input);
      await payment.update(next.properties);
      settings.payment = next.watched;
    },
    /** A deploy that changes the contract. */
    deployContract: async (input: ContractInput) => {
      const next = h.contractDeployment(input);
      await contract.update(next.properties);
      settings.contracts = [{ ...next.watched, label: 'boleto' }];
    },
  };
}

async function teardown(...resources: LocalCustomResource[]): Promise<void> {
  for (const resource of resources) if (resource.state) await resource.delete();
  await h.control.clearFaults();
  // A test that left another party's URL at the bank leaves nothing for the next one to refuse.
  await h.control.changeRegistration(SAMPLE_ACCOUNT.cooperativa, SAMPLE_ACCOUNT.conta, {
    urlCallback: null,
    authorizationCallback: null,
  });
}

const heldContract = async () => (await h.control.contracts()).find((c) => c.posto === SAMPLE_ACCOUNT.posto)!;
const heldRegistration = async () => (await h.control.registrations())[0];
const byName = (findings: WatchFinding[]) => Object.fromEntries(findings.map((f) => [f.registration, f]));

it('right after a deploy, both registrations are in sync with what it recorded', async () => {
  const w = await deployed();
  try {
    expect(await w.watch()).toEqual([
      { registration: 'payments', state: WatchState.IN_SYNC, drift: [], repaired: false },
      { registration: 'boleto', state: WatchState.IN_SYNC, drift: [], repaired: false },
    ]);
    expect(w.counted).toEqual([]);
    expect(w.states.values.get(w.paymentRecord)).toMatchObject({ state: WatchState.IN_SYNC, drift: [] });
  } finally {
    await teardown(w.payment, w.contract);
  }
});

it('never undoes a deploy that paused the contract, and puts the pause back when someone reactivates it', async () => {
  const w = await deployed();
  try {
    await w.deployContract({ url: URL_BOLETO, contratoStatus: 'INATIVO' as never, urlStatus: 'INATIVO' as never });
    expect((await heldContract()).contratoStatus).toBe('INATIVO');
    // The paused contract is what the deploy applied: nothing to repair.
    expect(byName(await w.watch()).boleto).toEqual({
      registration: 'boleto',
      state: WatchState.IN_SYNC,
      drift: [],
      repaired: false,
    });
    expect((await heldContract()).contratoStatus).toBe('INATIVO');
    // Someone turns it back on: held ATIVO where the stack says INATIVO is drift, and the pause is put back.
    await h.control.changeContract(Number((await heldContract()).idContrato), {
      contratoStatus: 'ATIVO',
      urlStatus: 'ATIVO',
    });
    expect(byName(await w.watch()).boleto).toEqual({
      registration: 'boleto',
      state: WatchState.REPAIRED,
      drift: [RegistrationDrift.ACTIVE],
      repaired: true,
    });
    expect(await heldContract()).toMatchObject({ contratoStatus: 'INATIVO', urlStatus: 'INATIVO' });
  } finally {
    await teardown(w.payment, w.contract);
  }
});

it('never puts back the old token after a deploy registered a new one, and repairs to the new one', async () => {
  const w = await deployed();
  const oldToken = h.paymentToken;
  const newToken = 'the-new-callback-token-0123456789abcdef';
  try {
    h.secrets.putValue(h.paymentTokenArn, newToken, ['AWSCURRENT']);
    await w.deployPayment({ url: URL_PAY, tokenVersion: '2' });
    expect((await heldRegistration()).authorizationCallback).toBe(newToken);
    expect(byName(await w.watch()).payments.state).toBe(WatchState.IN_SYNC);
    expect((await heldRegistration()).authorizationCallback).toBe(newToken);
    // Someone puts the old token back at the bank: the repair registers the deploy's (new) one.
    await h.control.changeRegistration(SAMPLE_ACCOUNT.cooperativa, SAMPLE_ACCOUNT.conta, {
      authorizationCallback: oldToken,
    });
    expect(byName(await w.watch()).payments).toEqual({
      registration: 'payments',
      state: WatchState.REPAIRED,
      drift: [RegistrationDrift.TOKEN],
      repaired: true,
    });
    expect((await heldRegistration()).authorizationCallback).toBe(newToken);
  } finally {
    h.secrets.putValue(h.paymentTokenArn, oldToken, ['AWSCURRENT']);
    await teardown(w.payment, w.contract);
  }
});

it('never installs a token a deploy would refuse: a newline value put in the secret without a deploy is a stale token, not a repair', async () => {
  const w = await deployed();
  const oldToken = h.paymentToken;
  try {
    h.secrets.putValue(h.paymentTokenArn, `${oldToken}-rotated\n`, ['AWSCURRENT']);
    await h.control.changeRegistration(SAMPLE_ACCOUNT.cooperativa, SAMPLE_ACCOUNT.conta, {
      authorizationCallback: 'not-ours',
    });
    const { result, output } = await w.watchWithLog();
    expect(byName(result).payments).toEqual({
      registration: 'payments',
      state: WatchState.DRIFT,
      drift: [RegistrationDrift.TOKEN, RegistrationDrift.STALE_TOKEN],
      repaired: false,
      notRepaired: expect.stringMatching(
        /^the token the last deploy registered is no longer one the receiver accepts .*deploy with a new tokenVersion/,
      ),
    });
    // Nothing was registered, and the drift alarm's metric counts it: it never clears by itself.
    expect((await heldRegistration()).authorizationCallback).toBe('not-ours');
    expect(w.counted.map((c) => c.metric)).toEqual([SweepMetric.REGISTRATION_DRIFT]);
    h.expectNoSecret(output);
  } finally {
    h.secrets.putValue(h.paymentTokenArn, oldToken, ['AWSCURRENT']);
    await teardown(w.payment, w.contract);
  }
});

it('never repairs to a recorded token version whose value a deploy would refuse', async () => {
  const w = await deployed();
  const oldToken = h.paymentToken;
  try {
    // A record naming a version whose value has a line break (no deploy writes one: the record was edited).
    h.secrets.putValue(h.paymentTokenArn, `${oldToken}\n`, ['AWSPENDING']);
    const pending = await loadTokenVersion(secretsManager, h.paymentTokenArn, { stage: 'AWSPENDING' }, 5_000);
    const record = (await records.read(w.paymentRecord))!;
    await records.write(w.paymentRecord, {
      ...record,
      tokenVersionId: pending!.versionId,
    } satisfies AppliedRegistration);
    await h.control.changeRegistration(SAMPLE_ACCOUNT.cooperativa, SAMPLE_ACCOUNT.conta, {
      authorizationCallback: 'not-ours',
    });
    expect(byName(await w.watch()).payments).toMatchObject({
      state: WatchState.DRIFT,
      repaired: false,
      notRepaired: expect.stringMatching(
        /^a deploy would refuse the token it would register: The token secret .* holds a value with leading or trailing whitespace/,
      ),
    });
    expect((await heldRegistration()).authorizationCallback).toBe('not-ours');
  } finally {
    h.secrets.finishRotation(h.paymentTokenArn);
    h.secrets.putValue(h.paymentTokenArn, oldToken, ['AWSCURRENT']);
    await teardown(w.payment, w.contract);
  }
});

it('while a change is under way (or the stack never served), reports without counting a drift and repairs nothing', async () => {
  const w = await deployed();
  try {
    await h.control.changeContract(Number((await heldContract()).idContrato), {
      contratoStatus: 'INATIVO',
      urlStatus: 'INATIVO',
    });
    for (const status of [
      'UPDATE_IN_PROGRESS',
      'UPDATE_ROLLBACK_IN_PROGRESS',
      'DELETE_IN_PROGRESS',
      'UPDATE_COMPLETE_CLEANUP_IN_PROGRESS',
      'CREATE_FAILED',
      'ROLLBACK_COMPLETE',
      'DELETE_FAILED',
    ]) {
      w.setStackStatus(status);
      expect(byName(await w.watch()).boleto).toEqual({
        registration: 'boleto',
        state: WatchState.DRIFT,
        drift: [RegistrationDrift.INACTIVE],
        repaired: false,
        notRepaired: `the stack is ${status}: compared again at the next sweep`,
      });
    }
    expect(w.counted).toEqual([]);
    expect((await heldContract()).contratoStatus).toBe('INATIVO');
    w.setStackStatus('UPDATE_ROLLBACK_COMPLETE');
    expect(byName(await w.watch()).boleto.state).toBe(WatchState.REPAIRED);
  } finally {
    await teardown(w.payment, w.contract);
  }
});

it('a stuck stack (a failed rollback, a failed update without rollback, a status it does not know) counts the drift every sweep and repairs nothing until it is completed', async () => {
  const w = await deployed();
  try {
    await h.control.changeContract(Number((await heldContract()).idContrato), {
      contratoStatus: 'INATIVO',
      urlStatus: 'INATIVO',
    });
    for (const status of [
      'UPDATE_ROLLBACK_FAILED',
      'UPDATE_FAILED',
      'IMPORT_ROLLBACK_FAILED',
      'SOME_STATUS_AWS_ADDS_LATER',
    ]) {
      w.setStackStatus(status);
      for (let sweep = 0; sweep < 2; sweep++) {
        expect(byName(await w.watch()).boleto).toEqual({
          registration: 'boleto',
          state: WatchState.DRIFT,
          drift: [RegistrationDrift.INACTIVE],
          repaired: false,
          notRepaired: expect.stringMatching(
            new RegExp(`^the stack is ${status} \\(.*\\): repaired once it is in a completed status$`),
          ),
        });
      }
    }
    // The drift alarm's metric, once a sweep: four statuses, two sweeps each.
    expect(w.counted).toEqual(
      Array(8).fill({ metric: SweepMetric.REGISTRATION_DRIFT, details: { registration: 'boleto', drift: 'inactive' } }),
    );
    expect((await heldContract()).contratoStatus).toBe('INATIVO');
    w.setStackStatus('UPDATE_ROLLBACK_COMPLETE');
    expect(byName(await w.watch()).boleto.state).toBe(WatchState.REPAIRED);
  } finally {
    await teardown(w.payment, w.contract);
  }
});

it('with no record of the last deploy (deleted) or an unreadable one, compares the bank with what the stack deployed, alarms, and changes nothing', async () => {
  const w = await deployed();
  try {
    h.ssm.put(w.paymentRecord, undefined);
    h.ssm.put(w.contractRecord, '{"hand":"edited"}');
    await h.control.changeRegistration(SAMPLE_ACCOUNT.cooperativa, SAMPLE_ACCOUNT.conta, { urlCallback: SOMEONE_ELSE });
    const findings = byName(await w.watch());
    expect(findings.payments).toEqual({
      registration: 'payments',
      state: WatchState.UNKNOWN,
      drift: [RegistrationDrift.OTHER_URL],
      repaired: false,
      notRepaired: expect.stringMatching(/^no deploy record \(deleted/),
    });
    // The bank still holds what the stack deployed for the contract: no drift, but the record alone alarms.
    expect(findings.boleto).toEqual({
      registration: 'boleto',
      state: WatchState.UNKNOWN,
      drift: [],
      repaired: false,
      notRepaired: expect.stringMatching(/is not a record the registration provider wrote/),
    });
    expect((await heldRegistration()).urlCallback).toBe(SOMEONE_ELSE);
    expect(w.counted.map((c) => c.metric)).toEqual([
      SweepMetric.REGISTRATION_DRIFT,
      SweepMetric.REGISTRATIONS_UNKNOWN,
      SweepMetric.REGISTRATION_RECORD_UNTRUSTED,
      SweepMetric.REGISTRATIONS_UNKNOWN,
      SweepMetric.REGISTRATION_RECORD_UNTRUSTED,
    ]);
    // Without a record, the token is compared with what the receiver accepts: someone's token at our URL is drift too.
    await h.control.changeRegistration(SAMPLE_ACCOUNT.cooperativa, SAMPLE_ACCOUNT.conta, {
      urlCallback: URL_PAY,
      authorizationCallback: 'not-ours',
    });
    expect(byName(await w.watch()).payments).toMatchObject({
      state: WatchState.UNKNOWN,
      drift: [RegistrationDrift.TOKEN],
      repaired: false,
    });
    expect((await heldRegistration()).authorizationCallback).toBe('not-ours');
  } finally {
    await teardown(w.payment, w.contract);
  }
});

it('a record rewritten with another URL, takeOverExisting and a fresh request id changes nothing at the bank and alarms', async () => {
  const w = await deployed();
  try {
    const paymentRecord = (await records.read(w.paymentRecord))!;
    const contractRecord = (await records.read(w.contractRecord))!;
    // Anyone allowed ssm:PutParameter on the record writes a well-formed one: their URL, take over.
    await records.write(w.paymentRecord, {
      ...paymentRecord,
      requestId: 'forged-1',
      spec: { ...paymentRecord.spec, url: `${SOMEONE_ELSE}/payments`, takeOverExisting: true },
    });
    await records.write(w.contractRecord, {
      ...contractRecord,
      requestId: 'forged-2',
      spec: { ...contractRecord.spec, url: `${SOMEONE_ELSE}/boleto`, takeOverExisting: true },
    });
    for (let sweep = 0; sweep < 2; sweep++) {
      const findings = byName(await w.watch());
      expect(findings.payments).toEqual({
        registration: 'payments',
        state: WatchState.RECORD_MISMATCH,
        drift: [],
        repaired: false,
        notRepaired: expect.stringContaining(
          `is not what the stack deployed (url is "${SOMEONE_ELSE}/payments", the stack deployed "${URL_PAY}"; takeOverExisting is true, the stack deployed (none)): someone wrote it`,
        ),
      });
      expect(findings.boleto).toMatchObject({ state: WatchState.RECORD_MISMATCH, drift: [], repaired: false });
    }
    expect((await heldRegistration()).urlCallback).toBe(URL_PAY);
    expect((await heldContract()).url).toBe(URL_BOLETO);
    // Alarmed every sweep (RegistrationRecordUntrusted), not once.
    expect(w.counted.filter((c) => c.metric === String(SweepMetric.REGISTRATION_RECORD_UNTRUSTED))).toHaveLength(4);
    // The bank drifts meanwhile: the drift alarms, and nothing is repaired, least of all to the forged record.
    await h.control.changeContract(Number((await heldContract()).idContrato), {
      contratoStatus: 'INATIVO',
      urlStatus: 'INATIVO',
    });
    await h.control.changeRegistration(SAMPLE_ACCOUNT.cooperativa, SAMPLE_ACCOUNT.conta, {
      urlCallback: `${SOMEONE_ELSE}/payments`,
    });
    const findings = byName(await w.watch());
    expect(findings.boleto).toMatchObject({
      state: WatchState.RECORD_MISMATCH,
      drift: [RegistrationDrift.INACTIVE],
      repaired: false,
    });
    expect(findings.payments).toMatchObject({
      state: WatchState.RECORD_MISMATCH,
      drift: [RegistrationDrift.OTHER_URL],
      repaired: false,
    });
    expect(
      w.counted
        .filter((c) => c.metric === String(SweepMetric.REGISTRATION_DRIFT))
        .map((c) => c.details.registration)
        .sort(),
    ).toEqual(['boleto', 'payments']);
    expect((await heldContract()).contratoStatus).toBe('INATIVO');
    expect((await heldRegistration()).urlCallback).toBe(`${SOMEONE_ELSE}/payments`);
  } finally {
    await teardown(w.payment, w.contract);
  }
});

it("a record whose contact fields were rewritten (someone else's e-mail) is not trusted, and a repair never sends them", async () => {
  const w = await deployed();
  try {
    await w.deployContract({ url: URL_BOLETO, email: 'finance@example.com' });
    const record = (await records.read(w.contractRecord))!;
    await records.write(w.contractRecord, { ...record, spec: { ...record.spec, email: 'attacker@example.net' } });
    await h.control.changeContract(Number((await heldContract()).idContrato), {
      contratoStatus: 'INATIVO',
      urlStatus: 'INATIVO',
    });
    expect(byName(await w.watch()).boleto).toMatchObject({
      state: WatchState.RECORD_MISMATCH,
      drift: [RegistrationDrift.INACTIVE],
      repaired: false,
      notRepaired: expect.stringContaining(
        'its contact fields (nomeResponsavel, email, telefone) are not the ones the stack deployed',
      ),
    });
    expect(await heldContract()).toMatchObject({ contratoStatus: 'INATIVO', email: 'finance@example.com' });
  } finally {
    await teardown(w.payment, w.contract);
  }
});

it('a record naming the bank credentials secret as the token, with its real version id and a fresh request id, registers nothing and alarms', async () => {
  const w = await deployed();
  try {
    // DescribeSecret shows a secret's version ids: they are no secret.
    const credentials = await loadTokenVersion(secretsManager, h.credentialsArn, { stage: 'AWSCURRENT' }, 5_000);
    const record = (await records.read(w.paymentRecord))!;
    await records.write(w.paymentRecord, {
      ...record,
      requestId: 'forged',
      tokenVersionId: credentials!.versionId,
      spec: { ...record.spec, tokenSecretArn: h.credentialsArn },
    });
    await h.control.changeRegistration(SAMPLE_ACCOUNT.cooperativa, SAMPLE_ACCOUNT.conta, {
      authorizationCallback: 'drifted',
    });
    const { result, output } = await w.watchWithLog();
    expect(byName(result).payments).toMatchObject({
      state: WatchState.RECORD_MISMATCH,
      drift: [RegistrationDrift.TOKEN],
      repaired: false,
      notRepaired: expect.stringContaining(
        `tokenSecretArn is "${h.credentialsArn}", the stack deployed "${h.paymentTokenArn}"`,
      ),
    });
    // The bank holds what it held: never the credentials' JSON (nothing was registered).
    expect((await heldRegistration()).authorizationCallback).toBe('drifted');
    expect(w.counted.map((c) => c.metric)).toEqual([
      SweepMetric.REGISTRATION_DRIFT,
      SweepMetric.REGISTRATION_RECORD_UNTRUSTED,
    ]);
    h.expectNoSecret(output);
  } finally {
    await teardown(w.payment, w.contract);
  }
});

it('a record another stack wrote (its URL, its stack) is refused: compared with what this stack deployed, never repaired to', async () => {
  const w = await deployed();
  try {
    // Another stack of the same bank account takes the registration over, and its deploy's record is copied over ours.
    const staging = h.paymentResource('arn:aws:cloudformation:us-east-1:000000000000:stack/Staging/2');
    await staging.create(h.paymentProperties({ url: `${SOMEONE_ELSE}/payments`, takeOverExisting: true }));
    const findings = byName(await w.watch());
    expect(findings.payments).toEqual({
      registration: 'payments',
      state: WatchState.RECORD_MISMATCH,
      drift: [RegistrationDrift.OTHER_URL],
      repaired: false,
      notRepaired: expect.stringContaining(
        '(it was written by another stack (arn:aws:cloudformation:us-east-1:000000000000:stack/Staging/2))',
      ),
    });
    expect(await records.read(w.paymentRecord)).toMatchObject({
      stackId: 'arn:aws:cloudformation:us-east-1:000000000000:stack/Staging/2',
      spec: { url: `${SOMEONE_ELSE}/payments` },
    });
    expect((await heldRegistration()).urlCallback).toBe(`${SOMEONE_ELSE}/payments`);
  } finally {
    await teardown(w.payment, w.contract);
  }
});

it('records the previous release wrote (no stack id, fields it defaulted) raise nothing on upgrade', async () => {
  const w = await deployed();
  try {
    await w.deployContract({
      url: URL_BOLETO,
      nomeResponsavel: 'Finance',
      email: 'finance@example.com',
      enviarIdTituloEmpresa: true,
      eventos: ['LIQUIDACAO', 'BAIXA'],
    });
    // The previous release's provider wrote the same record but for the stack's id.
    for (const name of [w.paymentRecord, w.contractRecord]) {
      const { stackId: _stackId, ...previous } = (await records.read(name))!;
      await records.write(name, previous);
    }
    expect(await w.watch()).toEqual([
      { registration: 'payments', state: WatchState.IN_SYNC, drift: [], repaired: false },
      { registration: 'boleto', state: WatchState.IN_SYNC, drift: [], repaired: false },
    ]);
    expect(w.counted).toEqual([]);
    // A repair keeps the contact fields the record holds.
    await h.control.changeContract(Number((await heldContract()).idContrato), {
      contratoStatus: 'INATIVO',
      urlStatus: 'INATIVO',
    });
    expect(byName(await w.watch()).boleto.state).toBe(WatchState.REPAIRED);
    expect(await heldContract()).toMatchObject({
      contratoStatus: 'ATIVO',
      nomeResponsavel: 'Finance',
      email: 'finance@example.com',
      eventos: ['LIQUIDACAO', 'BAIXA'],
    });
  } finally {
    await teardown(w.payment, w.contract);
  }
});

it("takeOverExisting alone never repairs: another party's registration stays theirs", async () => {
  const w = await deployed({ repair: false, takeOverExisting: true });
  try {
    await h.control.changeRegistration(SAMPLE_ACCOUNT.cooperativa, SAMPLE_ACCOUNT.conta, {
      urlCallback: `${SOMEONE_ELSE}/payments`,
      authorizationCallback: 'theirs',
    });
    await h.control.changeContract(Number((await heldContract()).idContrato), { url: `${SOMEONE_ELSE}/boleto` });
    const findings = byName(await w.watch());
    expect(findings.payments).toMatchObject({
      state: WatchState.DRIFT,
      drift: [RegistrationDrift.OTHER_URL],
      notRepaired: 'repairRegistrations is off',
    });
    expect(findings.boleto).toMatchObject({
      state: WatchState.DRIFT,
      drift: [RegistrationDrift.OTHER_URL],
      notRepaired: 'repairRegistrations is off',
    });
    expect((await heldRegistration()).urlCallback).toBe(`${SOMEONE_ELSE}/payments`);
    expect((await heldContract()).url).toBe(`${SOMEONE_ELSE}/boleto`);
  } finally {
    await teardown(w.payment, w.contract);
  }
});

it('stops after a registration is changed back soon after a repair (contested), until the bank matches or a deploy applies it anew', async () => {
  const w = await deployed({ takeOverExisting: true });
  const takeBack = () =>
    h.control.changeRegistration(SAMPLE_ACCOUNT.cooperativa, SAMPLE_ACCOUNT.conta, {
      urlCallback: `${SOMEONE_ELSE}/payments`,
      authorizationCallback: 'theirs',
    });
  try {
    await takeBack();
    expect(byName(await w.watch()).payments.state).toBe(WatchState.REPAIRED);
    // The other stack takes it back an hour later: no second repair, a contest instead.
    w.advance(3_600_000);
    await takeBack();
    expect(byName(await w.watch()).payments).toEqual({
      registration: 'payments',
      state: WatchState.CONTESTED,
      drift: [RegistrationDrift.OTHER_URL],
      repaired: false,
      notRepaired: expect.stringMatching(/^contested: it drifted again within 24 hours of a repair/),
    });
    w.advance(2 * 86_400_000);
    expect(byName(await w.watch()).payments.state).toBe(WatchState.CONTESTED);
    expect((await heldRegistration()).urlCallback).toBe(`${SOMEONE_ELSE}/payments`);
    expect(w.counted.filter((c) => c.metric === String(SweepMetric.REGISTRATION_CONTESTED))).toHaveLength(2);
    // A deploy applies it anew (it takes the registration over again): the watch repairs again after that.
    await w.deployPayment({ url: URL_PAY, takeOverExisting: true, tokenVersion: '3' });
    expect(byName(await w.watch()).payments.state).toBe(WatchState.IN_SYNC);
    await takeBack();
    expect(byName(await w.watch()).payments.state).toBe(WatchState.REPAIRED);
  } finally {
    await teardown(w.payment, w.contract);
  }
});

it('a drift long after a repair is repaired again (the bank deactivating a contract weeks apart is no contest)', async () => {
  const w = await deployed();
  const deactivate = async () =>
    h.control.changeContract(Number((await heldContract()).idContrato), {
      contratoStatus: 'INATIVO',
      urlStatus: 'INATIVO',
    });
  try {
    await deactivate();
    expect(byName(await w.watch()).boleto.state).toBe(WatchState.REPAIRED);
    w.advance(3 * 86_400_000);
    await deactivate();
    expect(byName(await w.watch()).boleto.state).toBe(WatchState.REPAIRED);
  } finally {
    await teardown(w.payment, w.contract);
  }
});
