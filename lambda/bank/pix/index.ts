/**
 * The standard Pix API (PIX-NOTES.md) as an API family, so far its client and the reading of its
 * answers; its route, subjects and registrations come with the Pix route (then it is registered in
 * ../families.ts). A handler imports this file, never the folder's others.
 */
export { PixClient, type PixClientOptions } from './pix-client';
export { ChargeState, type ChargeRead, type PixPageRead, type PixRead, type PixRefundRead, readCharge, readPix, readPixPage, readRefund } from './pix-answers';
export { RefundStatus } from '../../../contracts/pix';
