/**
 * How a module-level schema is declared: `export const X = /* @__PURE__ *\/ schema(() => z.object(...))`,
 * so that a bundle which does not read X leaves it out rather than building it at every cold start
 * (docs/decisions/165).
 *
 * esbuild takes `/* @__PURE__ *\/ z.object({...}).check(...)` as pure up to the first call only: the
 * chained `.check(...)` is a method call it cannot prove free of effects, so every schema of a module a
 * function imports was kept. An annotated call whose only argument is a closure is dropped whole when
 * its result is unused. (esbuild reads `@__NO_SIDE_EFFECTS__` on a function only within its own file,
 * so the annotation goes at each call.)
 */
export function schema<T>(build: () => T): T {
  return build();
}
