/**
 * The boleto webhook contract (spec 4.1): POST `contrato/`, GET `contratos/` and PUT
 * `contrato/{id}` under `{base_url}/cobranca/boleto/v1/webhook`, with the collection token. The
 * bank answers GET with one object or an array, and with 422 "Nenhum contrato encontrado" when
 * there is none; a second POST for the same cooperativa/posto/beneficiário gets 422 "Contrato já
 * existente."; there is no DELETE (cdk-bank-webhooks/docs/bank-api.md).
 */
import { BankApiError } from '../../errors';
import type { BoletoContractSpec } from '../../../../contracts/registration';
import { describeUrl, failAfterUndo, keepTimeToUndo, sameUrl, type StepContext } from './steps';

export const CONTRACT_PATH = '/cobranca/boleto/v1/webhook/contrato';
export const CONTRACTS_PATH = '/cobranca/boleto/v1/webhook/contratos';

/** The fields of a contract (spec 2.1), in the order the bank documents them. */
const CONTRACT_FIELDS = [
  'cooperativa',
  'posto',
  'codBeneficiario',
  'eventos',
  'url',
  'urlStatus',
  'contratoStatus',
  'nomeResponsavel',
  'email',
  'telefone',
  'enviarIdTituloEmpresa',
  'header',
  'token',
] as const;

/** Which contract: the bank keeps one per cooperativa, posto and beneficiário. */
export interface ContractIdentity {
  readonly cooperativa: string;
  readonly posto: string;
  readonly codBeneficiario: string;
}

export interface ContractResult {
  readonly id: string;
  /** The contract existed at the bank and was taken over with PUT. */
  readonly adopted: boolean;
}

type BankContract = Record<string, unknown>;

const operationName = (method: string, path: string, what: string) => `${method} ${path} (${what})`;

/** The contract's id in an answer: `idContrato`, or `id`. */
export function contractIdOf(contract: unknown): string | undefined {
  if (!contract || typeof contract !== 'object') return undefined;
  const c = contract as Record<string, unknown>;
  const id = c.idContrato ?? c.id;
  return typeof id === 'number' || (typeof id === 'string' && id) ? String(id) : undefined;
}

function matches(contract: BankContract, identity: ContractIdentity): boolean {
  // An answer that leaves out a field is taken to be about what was asked.
  const same = (value: unknown, expected: string) =>
    value === undefined || ((typeof value === 'string' || typeof value === 'number') && String(value) === expected);
  return (
    same(contract.cooperativa, identity.cooperativa) &&
    same(contract.posto, identity.posto) &&
    same(contract.codBeneficiario ?? contract.beneficiario, identity.codBeneficiario)
  );
}

/** The contracts the bank holds for an identity (none is an empty list, not an error). */
export async function findContracts(ctx: StepContext, identity: ContractIdentity): Promise<BankContract[]> {
  const url = new URL(`${ctx.bank.settings.baseUrl}${CONTRACTS_PATH}/`);
  url.searchParams.set('cooperativa', identity.cooperativa);
  url.searchParams.set('posto', identity.posto);
  url.searchParams.set('beneficiario', identity.codBeneficiario);
  const operation = operationName('GET', `${CONTRACTS_PATH}/`, 'list the boleto webhook contracts');
  let body: unknown;
  try {
    ({ body } = await ctx.bank.call({
      operation,
      api: 'collection',
      method: 'GET',
      url: url.toString(),
      deadline: ctx.deadline,
    }));
  } catch (error) {
    if (
      error instanceof BankApiError &&
      (error.status === 404 || (error.status === 422 && /nenhum contrato/i.test(error.detail)))
    )
      return [];
    throw error;
  }
  const list = Array.isArray(body) ? body : body && typeof body === 'object' ? [body] : [];
  return list.filter((c): c is BankContract => !!c && typeof c === 'object' && matches(c as BankContract, identity));
}

/** The body of POST and PUT: every field of the contract, the token read from its secret. */
async function contractBody(ctx: StepContext, spec: BoletoContractSpec): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {
    cooperativa: spec.cooperativa,
    posto: spec.posto,
    codBeneficiario: spec.codBeneficiario,
    eventos: spec.eventos,
    url: spec.url,
    urlStatus: spec.urlStatus,
    contratoStatus: spec.contratoStatus,
  };
  for (const key of ['nomeResponsavel', 'email', 'telefone', 'enviarIdTituloEmpresa', 'header'] as const) {
    if (spec[key] !== undefined) body[key] = spec[key];
  }
  if (spec.tokenSecretArn) body.token = await ctx.tokenValue(spec.tokenSecretArn);
  return body;
}

/**
 * The method that last changed a contract: PUT (the spec) first; a bank that answers 405 to it
 * takes PATCH (a later manual: cdk-bank-webhooks/docs/bank-api.md), and the reverse. Remembered while the function's
 * container lives, so the second method is tried once per container, not once per call.
 */
let changeMethod: 'PUT' | 'PATCH' = 'PUT';

/** Changes a contract with the whole body (a valid partial body too), by PUT or PATCH as the bank takes. */
async function put(ctx: StepContext, id: string, body: Record<string, unknown>, what: string): Promise<void> {
  const send = (method: 'PUT' | 'PATCH') =>
    ctx.bank.call({
      operation: operationName(method, `${CONTRACT_PATH}/${id}`, what),
      api: 'collection',
      method,
      url: `${ctx.bank.settings.baseUrl}${CONTRACT_PATH}/${encodeURIComponent(id)}`,
      body,
      deadline: ctx.deadline,
    });
  try {
    await send(changeMethod);
  } catch (error) {
    if (!(error instanceof BankApiError) || error.status !== 405) throw error;
    const other = changeMethod === 'PUT' ? 'PATCH' : 'PUT';
    ctx.log.warn(`The bank does not take ${changeMethod} to change a contract (405); trying ${other}`, {
      contractId: id,
    });
    await send(other);
    changeMethod = other;
  }
}

const isActive = (contract: BankContract) => contract.contratoStatus !== 'INATIVO' || contract.urlStatus !== 'INATIVO';

/** The contract as the bank holds it, as a PUT body: every field it answered, over the identity. */
function heldBody(held: BankContract, spec: BoletoContractSpec): Record<string, unknown> {
  const body: Record<string, unknown> = {
    cooperativa: spec.cooperativa,
    posto: spec.posto,
    codBeneficiario: spec.codBeneficiario,
    eventos: spec.eventos,
    url: spec.url,
  };
  for (const key of CONTRACT_FIELDS) {
    if (held[key] !== undefined && held[key] !== null) body[key] = held[key];
  }
  return body;
}

/** Switches a contract off with a PUT of the contract as the bank holds it (so no token has to be read). */
async function switchOff(
  ctx: StepContext,
  id: string,
  held: BankContract,
  spec: BoletoContractSpec,
  what: string,
): Promise<void> {
  await put(ctx, id, { ...heldBody(held, spec), contratoStatus: 'INATIVO', urlStatus: 'INATIVO' }, what);
}

/** Refuses an active contract of another URL unless `takeOverExisting` (then says what it replaces, never its token). */
function refuseAnotherParty(ctx: StepContext, spec: BoletoContractSpec, existing: BankContract): void {
  if (!isActive(existing) || !existing.url || sameUrl(existing.url, spec.url)) return;
  if (!spec.takeOverExisting) {
    throw new Error(
      `The bank already holds an active boleto webhook contract (${contractIdOf(existing) ?? 'no id'}) for cooperativa ${spec.cooperativa}, posto ${spec.posto}, beneficiário ${spec.codBeneficiario} pointing at ${describeUrl(existing.url)}, not this stack's ${spec.url}: another stack (staging and production register with the same bank) or a person made it. ` +
        'Nothing was changed. To take it over, set takeOverExisting: true on the contract; to keep it, remove this contract from the stack.',
    );
  }
  ctx.log.warn('Taking over the boleto webhook contract another party made (takeOverExisting)', {
    contractId: contractIdOf(existing),
    replaced: describeUrl(existing.url),
    url: spec.url,
  });
}

/**
 * Takes over the contract the bank holds with a PUT. When the PUT fails and the bank shows it took
 * effect all the same (an answer lost on the way), the contract is put back as it was before failing.
 */
async function adopt(
  ctx: StepContext,
  existing: BankContract,
  body: Record<string, unknown>,
  spec: BoletoContractSpec,
): Promise<ContractResult> {
  const id = contractIdOf(existing);
  if (!id)
    throw new Error(
      `GET ${CONTRACTS_PATH}/ answered a contract without idContrato, so it cannot be changed with PUT; ask the bank to check the contract of this cooperativa/posto/beneficiário`,
    );
  ctx.log.info('Adopting the contract the bank already holds', { contractId: id, heldUrl: describeUrl(existing.url) });
  try {
    await put(keepTimeToUndo(ctx), id, body, 'adopt the existing boleto webhook contract');
  } catch (error) {
    return failAfterUndo(error, `boleto webhook contract ${id}`, async () => {
      const now = (await findContracts(ctx, spec)).find((c) => contractIdOf(c) === id);
      const unchanged =
        now && CONTRACT_FIELDS.every((key) => JSON.stringify(now[key]) === JSON.stringify(existing[key]));
      // Gone, unchanged, or changed by someone else since: nothing of ours to undo.
      if (!now || unchanged || !sameUrl(now.url, spec.url)) return undefined;
      await put(ctx, id, heldBody(existing, spec), 'put back the contract as the bank held it');
      ctx.log.warn('The takeover failed: put back the contract as the bank held it', {
        contractId: id,
        restored: describeUrl(existing.url),
      });
      return `what the bank held before (${describeUrl(existing.url)}) was put back`;
    });
  }
  return { id, adopted: true };
}

/**
 * Create: adopts the contract the bank already holds for this cooperativa/posto/beneficiário
 * (PUT), refusing another party's active one unless `takeOverExisting`, else POSTs a new one. The
 * id comes from the answer, or from a GET when the answer has none. A POST that failed but that
 * the bank carried out all the same (its answer lost) leaves a contract pointing at this stack:
 * it is switched off before failing, since CloudFormation never deletes what a failed create made.
 */
export async function createContract(ctx: StepContext, spec: BoletoContractSpec): Promise<ContractResult> {
  const body = await contractBody(ctx, spec);
  const [existing] = await findContracts(ctx, spec);
  if (existing) {
    refuseAnotherParty(ctx, spec, existing);
    return adopt(ctx, existing, body, spec);
  }
  const operation = operationName('POST', `${CONTRACT_PATH}/`, 'create the boleto webhook contract');
  const work = keepTimeToUndo(ctx);
  let id: string | undefined;
  try {
    const { body: answer } = await ctx.bank.call({
      operation,
      api: 'collection',
      method: 'POST',
      url: `${ctx.bank.settings.baseUrl}${CONTRACT_PATH}/`,
      body,
      deadline: work.deadline,
    });
    id = contractIdOf(answer) ?? contractIdOf((await findContracts(work, spec))[0]);
    if (!id)
      throw new Error(
        `The bank accepted ${operation} but gave no contract id, and GET ${CONTRACTS_PATH}/ finds no contract: deploy again, or ask the bank whether the contract exists`,
      );
  } catch (error) {
    // Created by someone else between our GET and POST: theirs, unless told to take it over.
    if (error instanceof BankApiError && error.status === 422 && /j[aá] existente/i.test(error.detail)) {
      const [raced] = await findContracts(work, spec);
      if (raced) {
        refuseAnotherParty(ctx, spec, raced);
        return adopt(ctx, raced, body, spec);
      }
    }
    return failAfterUndo(
      error,
      `the boleto webhook contract of cooperativa ${spec.cooperativa}, posto ${spec.posto}`,
      async () => {
        const made = (await findContracts(ctx, spec)).find((c) => isActive(c) && sameUrl(c.url, spec.url));
        if (!made) return undefined;
        const madeId = contractIdOf(made);
        if (!madeId)
          throw new Error(
            "the bank holds an active contract for this stack's URL without idContrato, so it cannot be switched off",
          );
        await switchOff(ctx, madeId, made, spec, 'switch off the contract a failed create made');
        ctx.log.warn('The create failed: switched off the contract it made', { contractId: madeId, url: spec.url });
        return `the contract it made (${madeId}) was switched off`;
      },
    );
  }
  ctx.log.info('Created the boleto webhook contract', { contractId: id, url: spec.url });
  return { id, adopted: false };
}

/** Update: PUTs the whole contract; a contract the bank no longer has is made again. */
export async function updateContract(ctx: StepContext, id: string, spec: BoletoContractSpec): Promise<ContractResult> {
  const body = await contractBody(ctx, spec);
  try {
    await put(ctx, id, body, 'update the boleto webhook contract');
    ctx.log.info('Updated the boleto webhook contract', { contractId: id, url: spec.url });
    return { id, adopted: false };
  } catch (error) {
    if (!(error instanceof BankApiError && error.status === 404)) throw error;
    ctx.log.warn('The bank no longer has the contract: making it again', { contractId: id });
    return createContract(ctx, spec);
  }
}

export type ContractRemoval = 'deactivated' | 'not found' | 'already inactive' | 'registered by someone else';

/**
 * Delete: there is no DELETE, so the contract is switched off with a PUT that sets
 * `contratoStatus` and `urlStatus` to INATIVO, only while its URL is still ours. The PUT carries
 * the contract as the bank holds it, so no token has to be read.
 */
export async function deactivateContract(
  ctx: StepContext,
  id: string,
  spec: BoletoContractSpec,
): Promise<ContractRemoval> {
  const contracts = await findContracts(ctx, spec);
  const held = contracts.find((c) => contractIdOf(c) === id);
  if (!held) return 'not found';
  if (!sameUrl(held.url, spec.url)) {
    ctx.log.warn('The contract now points at another URL: left alone', {
      contractId: id,
      ours: spec.url,
      held: describeUrl(held.url),
    });
    return 'registered by someone else';
  }
  if (!isActive(held)) return 'already inactive';
  await switchOff(ctx, id, held, spec, 'deactivate the boleto webhook contract');
  return 'deactivated';
}
