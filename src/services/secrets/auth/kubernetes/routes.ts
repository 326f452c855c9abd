/**
 * Every path of the `kubernetes` auth method, in match order.
 * @module
 */
import type { SecretsPath } from '../../types.js';
import { k8sConfigPaths } from './config.routes.js';
import { k8sLoginPaths } from './login.routes.js';
import { k8sRolePaths } from './role.routes.js';

/** The kubernetes method's route table (reference: vault-plugin-auth-kubernetes). */
export const kubernetesPaths: readonly SecretsPath[] = [...k8sConfigPaths, ...k8sRolePaths, ...k8sLoginPaths];

/** Help description of a kubernetes mount's root. */
export const kubernetesHelp =
  "The Kubernetes auth method logs in pods with their service-account token, reviewed by the cluster's API server (TokenReview). Configure the API server under config/, roles under role/.";
