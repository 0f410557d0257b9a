#!/usr/bin/env node
// The executable parses nothing itself: the CLI module owns argv.
import { main } from '../dist/cli/main.js';

main(process.argv);
