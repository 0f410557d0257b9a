import { START_WITHIN, within, type Exit, type Run } from '../../support/process.js';

/**
 * How a start that must be refused ended: the exit, or the banner of a
 * sandbox that started after all. The banner ends the wait at once, so a
 * start that is wrongly accepted fails in a second rather than at the
 * time limit.
 */
export type StartOutcome = { refused: Exit } | { served: string };

/** Waits (at most START_WITHIN) for the process to exit or to print its banner. */
export async function refusalOf(started: Run): Promise<StartOutcome> {
  const served = new Promise<StartOutcome>((resolve) => {
    const check = () => {
      if (!/API base/.test(started.stdout())) return;
      started.child.stdout!.off('data', check);
      resolve({ served: started.stdout() });
    };
    started.child.stdout!.on('data', check);
    check();
  });
  const exited = started.exited.then((exit): StartOutcome => ({ refused: exit }));
  return within(Promise.race([exited, served]), START_WITHIN, 'the sandbox to exit or to serve');
}
