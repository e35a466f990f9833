// The workflows area's job kinds, named once (jobs.ts defines them; the operations and runs wake them).

/** Runs the steps of one execution (key: the execution id). */
export const STEP_JOB = 'run-workflow-step';

/** Starts the next run of an active schedule-triggered workflow when its time comes (key: the workflow id). */
export const SCHEDULE_JOB = 'workflow-schedule';
