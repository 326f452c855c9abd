/**
 * Registers the administration commands: `operator`, `status`, `policy`, `auth`, `secrets`,
 * `audit`, `login` and `namespace`.
 *
 * @module
 */
import type { Command } from 'commander';
import type { App } from '../context.js';
import { addAuditCommands } from './audit.js';
import { addAuthCommands } from './auth.js';
import { addLoginCommand } from './login.js';
import { addNamespaceCommands } from './namespace.js';
import { addOperatorCommands } from './operator.js';
import { addPolicyCommands } from './policy.js';
import { addSecretsCommands } from './secrets.js';

/** Adds `operator init|unseal|seal`, `status`, `policy …`, `auth …`, `secrets …`, `audit …`, `login` and `namespace …` to `program`. */
export function addAdminCommands(app: App, program: Command): void {
  addOperatorCommands(app, program);
  addPolicyCommands(app, program);
  addAuthCommands(app, program);
  addSecretsCommands(app, program);
  addAuditCommands(app, program);
  addLoginCommand(app, program);
  addNamespaceCommands(app, program);
}
