/** The calendar of Brazil's providers (this bank, the Pix API): Brasília's, three hours behind UTC all year since 2019. */

/** How far Brasília's clock is behind UTC. */
export const BRASILIA_OFFSET_MS = 3 * 3600_000;
export const DAY_MS = 86_400_000;

/** The day (`YYYY-MM-DD`) in Brasília `daysBack` days before the one `at` falls on there. */
export function brasiliaDay(at: number, daysBack = 0): string {
  return new Date(at - BRASILIA_OFFSET_MS - daysBack * DAY_MS).toISOString().slice(0, 10);
}
