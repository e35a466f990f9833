// The workflows area's job kinds, named once (jobs.ts defines them; the operations and runs wake them),
// and the largest message its video-review hooks take (the REST surface reads it without loading the area).

/** Runs the steps of one execution (key: the execution id). */
export const STEP_JOB = 'run-workflow-step';

/** Starts the next run of an active schedule-triggered workflow when its time comes (key: the workflow id). */
export const SCHEDULE_JOB = 'workflow-schedule';

/** The largest body a workflow's video-review hook accepts (hooks.ts). */
export const HOOK_BODY_LIMIT = 256 * 1024;
