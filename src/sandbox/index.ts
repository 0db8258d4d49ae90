export { DEFAULT_SANDBOX_PORT, SANDBOX_KEY, sandboxDir } from './constants.js'
export type { PackageRecord, PaymentLinkRecord, SubscriptionRecord, TokenizationRecord } from './records.js'
export {
  listPackages,
  markLinkPaid,
  type RunningSandbox,
  resetSandbox,
  type SandboxOptions,
  startSandbox,
} from './server.js'
export { StoreCorruptError } from './store.js'
