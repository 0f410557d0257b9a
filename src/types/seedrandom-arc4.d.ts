// The package's main module loads every generator it offers; this one file is its ARC4 generator alone, the one the scenario engine draws from.
declare module 'seedrandom/seedrandom.js' {
  import seedrandom from 'seedrandom';
  export default seedrandom;
}
