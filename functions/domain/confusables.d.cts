/** unhomoglyph's table of look-alike characters, loaded at the first call (confusables.cjs). */
declare function confusables(): Readonly<Record<string, string>>;
export = confusables;
