import { randomInt } from 'node:crypto';

/**
 * The campaign's knobs. CI runs the bounded defaults; a long run turns them
 * up from the environment (FUZZ_RUNS=50000), and a failing run is repeated
 * with the seed it printed (FUZZ_SEED=...).
 */

/**
 * A whole number of at least 1 from the environment variable `name`, or `fallback`.
 * @throws Error naming the variable when it is set to anything else.
 */
export function knob(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of at least 1, not ${JSON.stringify(text)}`);
  return value;
}

/**
 * The seed of a randomised part: the environment variable `name` (to replay
 * a run), or a fresh one. Printed either way, with the line that replays it.
 * @throws Error naming the variable when it is not a 32-bit integer.
 */
export function seedFrom(name: string, part: string): number {
  const text = process.env[name];
  let seed: number;
  if (text === undefined || text === '') seed = randomInt(0, 2 ** 31);
  else {
    seed = Number(text);
    if (!Number.isInteger(seed) || seed < -(2 ** 31) || seed >= 2 ** 31) throw new Error(`${name} must be a 32-bit integer, not ${JSON.stringify(text)}`);
  }
  console.log(`${part}: seed ${seed} (replay with ${name}=${seed})`);
  return seed;
}

/**
 * A small seeded generator (mulberry32) for the parts that draw numbers
 * without fast-check: the same seed gives the same draws.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
