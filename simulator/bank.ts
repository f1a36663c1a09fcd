/**
 * The simulated bank's state and rules, independent of HTTP: the collection API's book
 * (bank-collection.ts) and the payments API's (bank-payments.ts), one state exported and restored
 * together.
 */
import { type CollectionState, CollectionBook } from './bank-collection';
import type { BankOptions } from './bank-common';
import { type PaymentsState, PaymentsBook } from './bank-payments';

export { type BankOptions, type OutgoingNotification } from './bank-common';
export {
  type BoletoAction,
  type BoletoChangeInput,
  type NewBoletoInput,
  NOSSO_NUMERO_INVALID,
  OTHER_BENEFICIARY,
  OTHER_COOPERATIVA,
} from './bank-collection';
export { type NewPaymentInput, type PaymentAction, type PaymentChangeInput } from './bank-payments';

/** Everything the bank holds, as plain JSON: what a deployed simulator keeps between requests. */
export interface BankState extends CollectionState, PaymentsState {}

/** The simulated bank: both books, and their state as one. */
export class Bank {
  private readonly collection: CollectionBook;
  private readonly payments: PaymentsBook;

  constructor(options: BankOptions) {
    this.collection = new CollectionBook(options);
    this.payments = new PaymentsBook(options);
  }

  /** What the bank holds, as plain JSON (a copy). */
  exportState(): BankState {
    return structuredClone({ ...this.payments.exportState(), ...this.collection.exportState() });
  }

  /** Takes back what {@link exportState} gave, in place of everything held now. */
  restoreState(state: BankState): void {
    const copy = structuredClone<BankState>(state);
    this.collection.restoreState(copy);
    this.payments.restoreState(copy);
  }

  // The collection API's book: webhook contracts and boletos.
  readonly checkOwner: CollectionBook['checkOwner'] = (...args) => this.collection.checkOwner(...args);
  readonly createContract: CollectionBook['createContract'] = (...args) => this.collection.createContract(...args);
  readonly listContracts: CollectionBook['listContracts'] = (...args) => this.collection.listContracts(...args);
  readonly updateContract: CollectionBook['updateContract'] = (...args) => this.collection.updateContract(...args);
  readonly driftContract: CollectionBook['driftContract'] = (...args) => this.collection.driftContract(...args);
  readonly allContracts: CollectionBook['allContracts'] = (...args) => this.collection.allContracts(...args);
  readonly createBoleto: CollectionBook['createBoleto'] = (...args) => this.collection.createBoleto(...args);
  readonly getBoleto: CollectionBook['getBoleto'] = (...args) => this.collection.getBoleto(...args);
  readonly queryBoleto: CollectionBook['queryBoleto'] = (...args) => this.collection.queryBoleto(...args);
  readonly listSettledOnDay: CollectionBook['listSettledOnDay'] = (...args) =>
    this.collection.listSettledOnDay(...args);
  readonly changeBoleto: CollectionBook['changeBoleto'] = (...args) => this.collection.changeBoleto(...args);
  // The payments API's book: the callback registration and payments.
  readonly accountFor: PaymentsBook['accountFor'] = (...args) => this.payments.accountFor(...args);
  readonly getRegistration: PaymentsBook['getRegistration'] = (...args) => this.payments.getRegistration(...args);
  readonly patchRegistration: PaymentsBook['patchRegistration'] = (...args) => this.payments.patchRegistration(...args);
  readonly allRegistrations: PaymentsBook['allRegistrations'] = (...args) => this.payments.allRegistrations(...args);
  readonly driftRegistration: PaymentsBook['driftRegistration'] = (...args) => this.payments.driftRegistration(...args);
  readonly createPayment: PaymentsBook['createPayment'] = (...args) => this.payments.createPayment(...args);
  readonly getPayment: PaymentsBook['getPayment'] = (...args) => this.payments.getPayment(...args);
  readonly queryPayment: PaymentsBook['queryPayment'] = (...args) => this.payments.queryPayment(...args);
  readonly changePayment: PaymentsBook['changePayment'] = (...args) => this.payments.changePayment(...args);
}
