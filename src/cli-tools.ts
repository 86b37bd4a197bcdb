// The command line's tool subcommands (fixtures, ca, options-table) without the server and the areas, which
// only the server command needs: `mockyard fixtures` starts building about 0.15 s sooner.
import { makeProgram, runProgram } from './cli-program.js';

await runProgram(makeProgram());
