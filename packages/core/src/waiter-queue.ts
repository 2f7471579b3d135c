/**
 * A FIFO of waiters that also supports removing any waiter in O(1): an aborted or timed-out
 * acquire leaves the queue from wherever it stands, so the callers behind it move up at once
 * instead of waiting for a dead entry to reach the head.
 */
export class WaiterQueue<T> {
  #head: Node<T> | null = null;
  #tail: Node<T> | null = null;
  #length = 0;

  get length(): number {
    return this.#length;
  }

  /** The first waiter's value, or `undefined` when empty. */
  peek(): T | undefined {
    return this.#head?.value;
  }

  push(value: T): Node<T> {
    const node: Node<T> = { value, prev: this.#tail, next: null, queued: true };
    if (this.#tail) this.#tail.next = node;
    else this.#head = node;
    this.#tail = node;
    this.#length++;
    return node;
  }

  shift(): T | undefined {
    const node = this.#head;
    if (!node) return undefined;
    this.remove(node);
    return node.value;
  }

  /** Removes `node`; returns false if it had already left the queue. */
  remove(node: Node<T>): boolean {
    if (!node.queued) return false;
    if (node.prev) node.prev.next = node.next;
    else this.#head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.#tail = node.prev;
    node.prev = node.next = null;
    node.queued = false;
    this.#length--;
    return true;
  }
}

export interface Node<T> {
  readonly value: T;
  prev: Node<T> | null;
  next: Node<T> | null;
  queued: boolean;
}
