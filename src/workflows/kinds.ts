// The workflows area's job kinds, named once (jobs.ts defines them; the operations and runs wake them).

/** Runs the steps of one execution (key: the execution id). */
export const STEP_JOB = 'run-workflow-step';
