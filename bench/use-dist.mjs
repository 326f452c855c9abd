// `node --import ./bench/use-dist.mjs`: registers bench/dist-hooks.mjs (after tsx, so it
// sees tsx's resolution of src/ files and redirects them to dist/).
import { register } from 'node:module';

register('./dist-hooks.mjs', import.meta.url);
