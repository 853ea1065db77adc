import { ConfigError } from '../errors/index.js';

/** A decimal numeral: digits, an optional sign, fraction and exponent. No hex, octal, binary or blank. */
const DECIMAL = /^-?(?:\d+(?:\.\d+)?|\.\d+)(?:e[+-]?\d+)?$/i;

/**
 * The number a numeric flag spells, in decimal only (`60`, `0.5`, `1e3`): `Number()` would read
 * `0x10` as 16, `0b11` as 3 and `''` as 0. Anything else is refused naming the flag; the range is the schema's
 * to judge, by the same rule as in the library and the API.
 */
export function numericFlag(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (!DECIMAL.test(trimmed)) {
    throw new ConfigError(
      flag,
      `${JSON.stringify(text)} is not a decimal number (write it in digits, e.g. 60 or 0.5)`,
    );
  }
  return Number(trimmed);
}
