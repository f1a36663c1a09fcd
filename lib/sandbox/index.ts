export { BankSandbox, type BankSandboxProps } from './bank-sandbox';
