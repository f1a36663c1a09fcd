/**
 * The standard Pix API (PIX-NOTES.md) as an API family: its route (`/pix`), how it reads a
 * callback, its subjects (a Pix received, a refund of one), its client and the reading of its
 * answers. A handler imports this file, never the folder's others.
 */
import { ProcessorDefaults } from '../../../contracts/processor';
import type { ApiFamily } from '../family';
import { parsePixNotification } from './pix-notification';
import { pixRefundRules, pixRules } from './pix-subjects';

/** The family, made by a function: a handler that does not verify bundles none of it. */
export function pixFamily(): ApiFamily {
  return {
    name: 'pix',
    routes: ['pix'],
    parse: (_route, body) => parsePixNotification(body),
    subjects: [pixRules(), pixRefundRules()],
    subjectsPerNotification: ProcessorDefaults.subjectsPerNotification,
  };
}

export { PixClient, type PixClientOptions } from './pix-client';
export { ChargeState, type ChargeRead, type PixPageRead, type PixRead, type PixRefundRead, readCharge, readPix, readPixPage, readRefund } from './pix-answers';
export { isPixCallbackShape, isPixValidationCall } from './receiving';
export { type PixQueries, pixQueries } from './pix-queries';
export { parsePixCredentials, pixCredentialsFromSecret, readPixConnection } from './pix-connection';
export { pixRegistrations, type PixWebhookCaller } from './pix-registration';
export { RefundStatus } from '../../../contracts/pix';
export { pixDay, pixDayListing, pixDayWindow, type PixLister, type PixListingOptions, pixRefundListing } from './pix-listing';
