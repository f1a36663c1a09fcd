/**
 * What the receiver checks of the Pix route, and nothing more: the provider's pinned certificate
 * and a body's shape (the family's entry point for the receiver; its other files, the client and
 * the readers, are the processor's and the sweep's, and would only slow the receiver's cold start).
 */
import { PIX_RECURRING_ROUTES, PIX_ROUTE } from '../../../contracts/receiver';
import { BodyShape, RouteCredential, type RouteIntake } from '../intake';

/** Whether a JSON value is an object (not an array, not null): the one test the family's readers share. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value);

/**
 * What a body on the Pix route is, read once: an empty body, or JSON without a `pix` array, is the
 * provider's validation call; a JSON object with a `pix` array of objects is a callback's shape;
 * anything else (not JSON, a `pix` array holding something other than objects) is neither. The
 * recurring routes read their own list (`recs`, `cobsr`) the same way.
 */
export function pixBodyShape(body: Buffer | string, list = 'pix'): BodyShape {
  if (!body.length) return BodyShape.VALIDATION;
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));
  } catch {
    return BodyShape.OTHER;
  }
  const items = isObject(parsed) ? parsed[list] : undefined;
  if (!Array.isArray(items)) return BodyShape.VALIDATION;
  return items.every(isObject) ? BodyShape.NOTIFICATION : BodyShape.OTHER;
}

/** The list each Pix Automático route's callback holds (the standard's `RecNotification`, `CobRNotification`). */
export const RECURRING_CALLBACK_LISTS: Readonly<Record<(typeof PIX_RECURRING_ROUTES)[number], string>> = {
  rec: 'recs',
  cobr: 'cobsr',
};

/**
 * The Pix route: no credential travels with a callback (`security: []` in the standard), so the
 * provider is known by its client certificate, pinned where the stack serves the Pix API over
 * mutual TLS; the API's bare URL and a body without a `pix` array are its validation calls.
 */
export const PIX_INTAKES: readonly RouteIntake[] = [
  {
    route: PIX_ROUTE,
    provider: 'Pix',
    credential: RouteCredential.CLIENT_CERTIFICATE,
    pins: (settings) => settings.pixClientCertificates,
    validationAtRoot: true,
    shape: pixBodyShape,
    shapeRule: 'a JSON object with a pix array of objects',
  },
  // Pix Automático's routes: the same provider, the same pins; a body without its list is a validation call.
  ...PIX_RECURRING_ROUTES.map((route): RouteIntake => ({
    route,
    provider: 'Pix',
    credential: RouteCredential.CLIENT_CERTIFICATE,
    pins: (settings) => settings.pixClientCertificates,
    validationAtRoot: false,
    shape: (body) => pixBodyShape(body, RECURRING_CALLBACK_LISTS[route]),
    shapeRule: `a JSON object with a ${RECURRING_CALLBACK_LISTS[route]} array of objects`,
  })),
];
