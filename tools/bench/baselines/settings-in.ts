/** The settings the bench gave a baseline, as the construct writes them for the handler the baseline stands beside. */
export function settingsIn<T>(name: string): T {
  const raw = process.env[name];
  if (!raw) throw new Error(`${name} is not set: the bench sets it as the construct would`);
  return JSON.parse(raw) as T;
}
