/** A dashboard address's view and its parameters (views.js, viewOf). */
export interface DashboardView {
  /** overview, notifications, clock, scenarios, journal, merchant, go-live or payment */
  view: string;
  params: { publicKey?: string; paymentReference?: string };
}

/** The view a path below `/__sandbox/dashboard/` names (not decoded), or undefined when it names none. */
export function viewOf(path: string): DashboardView | undefined;
