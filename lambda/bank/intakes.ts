/**
 * Every route's intake, one line per family: the one file the receiver imports from lambda/bank/
 * (each family's receiving.ts, light, never its client).
 */
import { COOPERATIVE_INTAKES } from './cooperative/receiving';
import { BodyShape, type CertificateIntake, RouteCredential, type RouteIntake } from './intake';
import { PIX_INTAKES } from './pix/receiving';

export { BodyShape, type CertificateIntake, RouteCredential, type RouteIntake, type TokenIntake } from './intake';

/** Every family's routes' intakes. */
export const INTAKES: readonly RouteIntake[] = [...COOPERATIVE_INTAKES, ...PIX_INTAKES];

/** The intake of a route, or undefined for a route no family reads. */
export function intakeOf(route: string): RouteIntake | undefined {
  return INTAKES.find((intake) => intake.route === route);
}

/** The intake whose provider calls the API's bare URL to validate it, if any. */
export const ROOT_INTAKE: CertificateIntake | undefined = INTAKES.find(
  (intake): intake is CertificateIntake =>
    intake.credential === RouteCredential.CLIENT_CERTIFICATE && intake.validationAtRoot,
);

/** What a body on a route is: its family's reading where the route has one (a token route's every body is a notification). */
export function bodyShape(intake: RouteIntake, body: Buffer | string): BodyShape {
  return intake.credential === RouteCredential.CLIENT_CERTIFICATE ? intake.shape(body) : BodyShape.NOTIFICATION;
}
