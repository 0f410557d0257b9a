// Types of scripts/cockpit-scene.mjs, for the tests that import it (test/tsconfig.json type-checks TypeScript only).

/** The merchants of the scene, by role: each a publicKey. */
export declare const SCENE_MERCHANTS: Readonly<{ day: string; subscriber: string; qa: string }>;

/** The paymentReferences a check or a picture opens. */
export declare const SCENE_REFERENCES: Readonly<{ cardWithDeliveries: string; declinedCard: string; longReference: string }>;

/** The staged scene: its merchants and references, the receiver's URL, and `close()` to stop the receiver. */
export interface CockpitScene {
  merchants: typeof SCENE_MERCHANTS;
  references: typeof SCENE_REFERENCES;
  receiverUrl: string;
  close(): Promise<void>;
}

/**
 * Stages the scene on the sandbox at `base` (its base URL, run without a
 * control token) through the control API and the Payments API, with the
 * merchants' receiver on `options.receiverPort` when free (default: any free port).
 * @throws Error naming the request whose answer was not 2xx.
 */
export declare function stageCockpitScene(base: string, options?: { receiverPort?: number }): Promise<CockpitScene>;

/** One address of the dashboard over the scene. */
export interface CockpitAddress {
  /** The name a screenshot is saved under (`docs/screenshots/<name>-<width>.png`). */
  name: string;
  /** The `data-view` of `<main id="view">` its page draws. */
  view: 'overview' | 'merchant' | 'payment' | 'notifications' | 'clock' | 'scenarios' | 'journal' | 'not-found';
  /** Below the sandbox's base URL, query included. */
  path: string;
  /** Whether `npm run screenshots` pictures it; the others are checked only. */
  pictured: boolean;
}

/** The addresses of every view of the dashboard over the scene, each view once pictured, a few checked a second time. */
export declare function cockpitAddresses(): CockpitAddress[];
