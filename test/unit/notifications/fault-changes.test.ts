import { describe, expect, it } from 'vitest';
import { NotificationFaults, type NotificationFaultChange } from '../../../src/notifications/faults.js';

/** NotificationFaults.onChange: every change of the faults, whoever makes it (docs/decisions.md#d80-server-sent-events). */

describe('NotificationFaults.onChange', () => {
  it('hears a fault added, used, cleared and replaced; a take with none set is silent', () => {
    const faults = new NotificationFaults();
    const heard: NotificationFaultChange[] = [];
    faults.onChange = (change) => heard.push(change);
    expect(faults.take('A')).toBeUndefined();
    const fault = faults.add('A', { kind: 'duplicate', times: 1 });
    expect(faults.take('A')).toEqual({ kind: 'duplicate' });
    faults.clear();
    faults.replace([], 'A');
    expect(heard.map((change) => change.action)).toEqual(['added', 'used', 'cleared', 'replaced']);
    expect(heard[1]).toMatchObject({ fault: { id: fault.id, publicKey: 'A', times: 0 } });
    expect(heard[3]).toEqual({ action: 'replaced', publicKey: 'A' });
  });
});
