/**
 * Every route's intake, one line per family: the one file the receiver imports from lambda/bank/
 * (each family's receiving.ts, light, never its client).
 */
import { COOPERATIVE_INTAKES } from './cooperative/receiving';
import type { RouteIntake } from './intake';
import { PIX_INTAKES } from './pix/receiving';

export { BodyShape, RouteCredential, type RouteIntake } from './intake';

/** Every family's routes' intakes. */
export const INTAKES: readonly RouteIntake[] = [...COOPERATIVE_INTAKES, ...PIX_INTAKES];

/** The intake of a route, or undefined for a route no family reads. */
export function intakeOf(route: string): RouteIntake | undefined {
  return INTAKES.find((intake) => intake.route === route);
}

/** The intake whose provider calls the API's bare URL to validate it, if any. */
export const ROOT_INTAKE: RouteIntake | undefined = INTAKES.find((intake) => intake.validationAtRoot);
