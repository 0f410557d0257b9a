// global-agent 4.1.3 ships its types at dist/index.d.ts, but its package.json
// names dist/src/index.d.ts; this points the compiler at the shipped ones.
declare module 'global-agent' {
  export * from 'global-agent/dist/index.js';
}
