import type {
  DescMethodUnary,
  DescService,
  MessageInitShape,
  MessageShape,
} from "@bufbuild/protobuf";
import type { Principal } from "../auth/index.ts";

/** What a domain service knows of the request it serves; never HTTP. */
export interface Call {
  /** The authenticated caller; undefined only for methods that need no credentials. */
  principal: Principal | undefined;
  /** Echoed in logs and in INTERNAL error messages. */
  requestId: string;
  /** Aborted when the client goes away or the server shuts down. */
  signal: AbortSignal;
  /**
   * REST only: the field paths present in the JSON body (snake_case, dotted for nested
   * fields). An update with no mask changes exactly these (spec "Partial update" rule 1).
   */
  bodyPaths?: string[];
}

/** One unary RPC implemented once and called by every door. */
export type Handler<M extends DescMethodUnary> = (
  request: MessageShape<M["input"]>,
  call: Call,
) => Promise<MessageInitShape<M["output"]>>;

type UnaryMethods<S extends DescService> = {
  [K in keyof S["method"]]: S["method"][K] extends DescMethodUnary ? S["method"][K] : never;
};

/** A service implementation: one handler per method, keyed by the method's local name. */
export type ServiceHandlers<S extends DescService> = {
  [K in keyof UnaryMethods<S>]: Handler<UnaryMethods<S>[K]>;
};

/** A service descriptor paired with its implementation, as the doors consume it. */
export interface BoundService<S extends DescService = DescService> {
  service: S;
  handlers: ServiceHandlers<S>;
  /**
   * Full method names (`pkg.Service/Method`) that need no credentials. Credentials a caller
   * sends anyway are checked like everywhere else, and the call sees its principal.
   */
  anonymous?: ReadonlySet<string>;
}

/** Pairs a service with its handlers, keeping the handler types checked. */
export function bindService<S extends DescService>(
  service: S,
  handlers: ServiceHandlers<S>,
  anonymous?: ReadonlySet<string>,
): BoundService {
  return { service, handlers, anonymous } as unknown as BoundService;
}
