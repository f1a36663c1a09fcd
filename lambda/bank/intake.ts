/**
 * What the receiver asks of an API family about each of its routes: how the provider proves it
 * sent a request there, and which bodies are notifications to store. The receiver reads a route's
 * intake and nothing else of a family (a family's other files, its client and its readers, would
 * only slow the receiver's cold start): intakes.ts lists them. This file imports only contracts.
 */
import type { PixClientCertificatePins, ReceiverSettings, Route } from '../../contracts/receiver';

/** How the provider proves it sent a request on a route. */
export enum RouteCredential {
  /** A token in a header, compared with a secret's current (and, during a rotation, pending) value. */
  TOKEN = 'token',
  /** The provider's client certificate at a mutual-TLS domain, pinned by the stack: nothing travels in the request. */
  CLIENT_CERTIFICATE = 'client-certificate',
}

/** What a body on a route is, read once. */
export enum BodyShape {
  /** A notification's shape: stored (what it holds inside is the processor's to judge). */
  NOTIFICATION = 'notification',
  /** The provider's validation call: answered 200, counted, nothing stored. */
  VALIDATION = 'validation',
  /** Neither: stored only where the credential proves the provider sent it (see {@link RouteIntake.shapeRule}). */
  OTHER = 'other',
}

/** What every route's intake says. */
interface IntakeBase {
  readonly route: Route;
  /** Who sends on the route, as a log line and an answer name it (`Pix`: a `Pix callback`). */
  readonly provider: string;
}

/** A route whose requests carry a token. */
export interface TokenIntake extends IntakeBase {
  readonly credential: RouteCredential.TOKEN;
  /** The header the provider sends its token in, and the secret holding the values. */
  token(settings: ReceiverSettings): { readonly header: string; readonly secretArn: string };
}

/** A route whose provider is known by its client certificate (nothing travels in the request). */
export interface CertificateIntake extends IntakeBase {
  readonly credential: RouteCredential.CLIENT_CERTIFICATE;
  /** The provider's certificates the stack pins, or undefined where it pins none (no mutual TLS: anyone can post, and {@link shape} decides). */
  pins(settings: ReceiverSettings): PixClientCertificatePins | undefined;
  /** Whether a request to the API's bare URL is this route's provider's validation call. */
  readonly validationAtRoot: boolean;
  /** What a body is (its bytes, or API Gateway's text of them). */
  shape(body: Buffer | string): BodyShape;
  /** The shape a callback has, said in the 400 answer to another body where nothing authenticates the sender. */
  readonly shapeRule: string;
}

/** One route's intake. */
export type RouteIntake = TokenIntake | CertificateIntake;
