/**
 * Real time that can jump ahead: shared by the controller and the local EC2, so "91 seconds
 * later" or "after the lease" takes no waiting, while the sandboxes' short delays still run out
 * by themselves (a frozen manual clock would stall every wait for EC2).
 */
export class JumpClock {
  private offset = 0;

  readonly now = (): number => Date.now() + this.offset;

  jump(ms: number): void {
    this.offset += ms;
  }

  /** A pass's time budget on this clock (a handler would count it on the wall clock). */
  budget(ms = 30_000): { deadline: number } {
    return { deadline: this.now() + ms };
  }
}
