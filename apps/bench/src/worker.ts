/**
 * The worker's entry at a fixed path: the A/B gate spawns `apps/bench/dist/worker.js` of the
 * base tree as well as of this one, so the path must not move with the code.
 */
import "./measure/worker.js";
