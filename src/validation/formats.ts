import { createRequire } from 'node:module';

// ajv-formats' formats and prism's own date-time check, as prism's validator registers them.
const require = createRequire(import.meta.url);
const { fullFormats } = require('ajv-formats/dist/formats.js') as { fullFormats: Record<string, unknown> };
const dateTime = require('@stoplight/prism-http/dist/validator/validators/dateTime.js') as {
  fmtDef: (validate: unknown, compare: unknown) => unknown;
  date_time: unknown;
  compareDateTime: unknown;
};

/**
 * The string formats prism validates with: ajv-formats' full set, with
 * prism's date-time (which accepts a space as well as a `T`). The prepared
 * validators import this map by name, so that build and run time check
 * formats alike.
 */
export const formats: Record<string, unknown> = { ...fullFormats, 'date-time': dateTime.fmtDef(dateTime.date_time, dateTime.compareDateTime) };
