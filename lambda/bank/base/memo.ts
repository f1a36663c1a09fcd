/** `make` called once per key (`keyOf` of the argument: the argument itself unless given), its result kept. */
export function memoized<A, V>(make: (arg: A) => V, keyOf: (arg: A) => unknown = (arg) => arg): (arg: A) => V {
  const made = new Map<unknown, V>();
  return (arg) => {
    const key = keyOf(arg);
    if (!made.has(key)) made.set(key, make(arg));
    return made.get(key)!;
  };
}
