// The WebDriver BiDi types this project uses (W3C WebDriver BiDi, trimmed to the fields it reads or sends).

export type Empty = Record<string, never>;
export type StringValue = { type: "string"; value: string };
export type BytesValue = StringValue | { type: "base64"; value: string };
export type SameSite = "strict" | "lax" | "none" | "default";
export interface Header {
  name: string;
  value: BytesValue;
}
export interface Cookie {
  name: string;
  value: BytesValue;
  domain: string;
  path: string;
  size: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: SameSite;
  expiry?: number;
}
export interface PartialCookie {
  name: string;
  value: BytesValue;
  domain: string;
  path?: string;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: SameSite;
  expiry?: number;
}
export type CookieFilter = Partial<Omit<Cookie, "value">> & { value?: BytesValue };
export type PartitionDescriptor =
  | { type: "context"; context: string }
  | { type: "storageKey"; userContext?: string; sourceOrigin?: string };
export interface PartitionKey {
  userContext?: string;
  sourceOrigin?: string;
}
export type UrlPattern =
  | { type: "string"; pattern: string }
  | {
      type: "pattern";
      protocol?: string;
      hostname?: string;
      port?: string;
      pathname?: string;
      search?: string;
    };
export type InterceptPhase = "beforeRequestSent" | "responseStarted" | "authRequired";
export type Target = { context: string; sandbox?: string } | { realm: string };
/** A node (or window) as BiDi hands it over; `sharedId` names it in any realm of its document. */
export interface SharedReference {
  sharedId: string;
}
export interface SerializationOptions {
  maxDomDepth?: number | null;
  maxObjectDepth?: number | null;
  includeShadowTree?: "none" | "open" | "all";
}
/** A function BiDi hands a preload script that sends `script.message` events on `channel`. */
export interface ChannelValue {
  type: "channel";
  value: { channel: string; serializationOptions?: SerializationOptions; ownership?: "root" | "none" };
}
export interface PreloadScript {
  functionDeclaration: string;
  /** Absent: the page's own world (only the hint recorder runs there, spec §1.6). */
  sandbox?: string;
  arguments?: ChannelValue[];
}
export type Origin = "viewport" | "pointer" | { type: "element"; element: SharedReference };
export type PointerAction =
  | { type: "pause"; duration?: number }
  | { type: "pointerMove"; x: number; y: number; duration?: number; origin?: Origin }
  | { type: "pointerDown"; button: number }
  | { type: "pointerUp"; button: number };
export type KeyAction =
  | { type: "pause"; duration?: number }
  | { type: "keyDown"; value: string }
  | { type: "keyUp"; value: string };
export type WheelAction =
  | { type: "pause"; duration?: number }
  | { type: "scroll"; x: number; y: number; deltaX: number; deltaY: number; origin?: Origin };
export type SourceActions =
  | {
      type: "pointer";
      id: string;
      parameters?: { pointerType: "mouse" | "pen" | "touch" };
      actions: PointerAction[];
    }
  | { type: "key"; id: string; actions: KeyAction[] }
  | { type: "wheel"; id: string; actions: WheelAction[] }
  | { type: "none"; id: string; actions: { type: "pause"; duration?: number }[] };
export interface UserPrompt {
  context: string;
  type: "alert" | "confirm" | "prompt" | "beforeunload";
  message: string;
  defaultValue?: string;
}
/** A remote value as BiDi serialises it; `value` holds primitives, arrays and objects in their wire shape. */
export interface RemoteValue {
  type: string;
  value?: unknown;
  handle?: string;
}
export type LocalValue = RemoteValue | { type: "undefined" | "null" } | { handle: string } | SharedReference;
export type EvaluateResult =
  | { type: "success"; result: RemoteValue; realm: string }
  | {
      type: "exception";
      exceptionDetails: { text: string; lineNumber: number; columnNumber: number };
      realm: string;
    };
export interface BrowsingContextInfo {
  context: string;
  url: string;
  parent?: string | null;
  children: BrowsingContextInfo[] | null;
  userContext?: string;
  /** The context whose page opened this tab (window.open, a target=_blank link), noopener or not. */
  originalOpener?: string | null;
}
export type ReadinessState = "none" | "interactive" | "complete";

export interface Commands {
  "session.subscribe": {
    params: { events: string[]; contexts?: string[] };
    result: { subscription: string };
  };
  "session.unsubscribe": { params: { subscriptions: string[] }; result: Empty };
  "browsingContext.create": {
    params: { type: "tab" | "window"; background?: boolean; referenceContext?: string; userContext?: string };
    result: { context: string };
  };
  "browsingContext.navigate": {
    params: { context: string; url: string; wait?: ReadinessState };
    result: { navigation: string | null; url: string };
  };
  "browsingContext.close": { params: { context: string; promptUnload?: boolean }; result: Empty };
  "browsingContext.getTree": {
    params: { maxDepth?: number; root?: string };
    result: { contexts: BrowsingContextInfo[] };
  };
  "browsingContext.setViewport": {
    params: ({ context: string } | { userContexts: string[] }) & {
      viewport: { width: number; height: number } | null;
    };
    result: Empty;
  };
  "browsingContext.activate": { params: { context: string }; result: Empty };
  "browsingContext.traverseHistory": { params: { context: string; delta: number }; result: Empty };
  "browsingContext.reload": {
    params: { context: string; ignoreCache?: boolean; wait?: ReadinessState };
    result: { navigation: string | null; url: string };
  };
  "browsingContext.handleUserPrompt": {
    params: { context: string; accept?: boolean; userText?: string };
    result: Empty;
  };
  "browsingContext.captureScreenshot": {
    params: {
      context: string;
      origin?: "viewport" | "document";
      format?: { type: string; quality?: number };
      clip?:
        | { type: "element"; element: SharedReference }
        | { type: "box"; x: number; y: number; width: number; height: number };
    };
    result: { data: string };
  };
  "browsingContext.print": {
    params: {
      context: string;
      background?: boolean;
      orientation?: "portrait" | "landscape";
      scale?: number;
      pageRanges?: (string | number)[];
    };
    result: { data: string };
  };
  "input.performActions": { params: { context: string; actions: SourceActions[] }; result: Empty };
  "input.releaseActions": { params: { context: string }; result: Empty };
  "input.setFiles": { params: { context: string; element: SharedReference; files: string[] }; result: Empty };
  "network.addIntercept": {
    params: { phases: InterceptPhase[]; contexts?: string[]; urlPatterns?: UrlPattern[] };
    result: { intercept: string };
  };
  "network.removeIntercept": { params: { intercept: string }; result: Empty };
  "network.provideResponse": {
    params: {
      request: string;
      statusCode?: number;
      reasonPhrase?: string;
      headers?: Header[];
      body?: BytesValue;
    };
    result: Empty;
  };
  "network.continueRequest": {
    params: { request: string; url?: string; method?: string; headers?: Header[]; body?: BytesValue };
    result: Empty;
  };
  "network.failRequest": { params: { request: string }; result: Empty };
  "network.continueWithAuth": {
    params:
      | { request: string; action: "default" | "cancel" }
      | {
          request: string;
          action: "provideCredentials";
          credentials: { type: "password"; username: string; password: string };
        };
    result: Empty;
  };
  "script.evaluate": {
    params: { expression: string; target: Target; awaitPromise: boolean; resultOwnership?: "root" | "none" };
    result: EvaluateResult;
  };
  "script.callFunction": {
    params: {
      functionDeclaration: string;
      target: Target;
      awaitPromise: boolean;
      arguments?: LocalValue[];
      this?: LocalValue;
      resultOwnership?: "root" | "none";
      serializationOptions?: SerializationOptions;
    };
    result: EvaluateResult;
  };
  "script.getRealms": {
    params: { context?: string; type?: string };
    result: { realms: { realm: string; origin: string; type: string; context?: string; sandbox?: string }[] };
  };
  "script.addPreloadScript": {
    params: PreloadScript & { contexts?: string[] };
    result: { script: string };
  };
  "script.removePreloadScript": { params: { script: string }; result: Empty };
  "storage.getCookies": {
    params: { filter?: CookieFilter; partition?: PartitionDescriptor };
    result: { cookies: Cookie[]; partitionKey: PartitionKey };
  };
  "storage.setCookie": {
    params: { cookie: PartialCookie; partition?: PartitionDescriptor };
    result: { partitionKey: PartitionKey };
  };
  "storage.deleteCookies": {
    params: { filter?: CookieFilter; partition?: PartitionDescriptor };
    result: { partitionKey: PartitionKey };
  };
}
export type Method = keyof Commands;

export interface NavigationInfo {
  context: string;
  navigation: string | null;
  timestamp: number;
  url: string;
}
export interface RequestData {
  request: string;
  url: string;
  method: string;
  headers: Header[];
}
export interface NetworkEvent {
  context: string | null;
  navigation: string | null;
  redirectCount: number;
  request: RequestData;
  timestamp: number;
  isBlocked: boolean;
  intercepts?: string[];
}
export interface ResponseData {
  url: string;
  status: number;
  statusText: string;
  mimeType: string;
  headers: Header[];
}
export interface Events {
  "browsingContext.load": NavigationInfo;
  "browsingContext.domContentLoaded": NavigationInfo;
  "browsingContext.navigationStarted": NavigationInfo;
  "browsingContext.contextCreated": BrowsingContextInfo;
  "browsingContext.contextDestroyed": BrowsingContextInfo;
  "browsingContext.navigationAborted": NavigationInfo;
  "browsingContext.navigationFailed": NavigationInfo;
  "browsingContext.navigationCommitted": NavigationInfo;
  "browsingContext.fragmentNavigated": NavigationInfo;
  "browsingContext.downloadWillBegin": NavigationInfo;
  "browsingContext.userPromptOpened": UserPrompt;
  "browsingContext.userPromptClosed": { context: string; accepted: boolean; type: string; userText?: string };
  "network.beforeRequestSent": NetworkEvent;
  "network.responseStarted": NetworkEvent & { response: ResponseData };
  "network.responseCompleted": NetworkEvent & { response: ResponseData };
  "network.fetchError": NetworkEvent & { errorText: string };
  "network.authRequired": NetworkEvent & { response: ResponseData };
  "script.message": { channel: string; data: RemoteValue; source: { realm: string; context?: string } };
  "log.entryAdded": {
    level: string;
    text: string | null;
    type: string;
    source: { realm: string; context?: string };
  };
}
export type EventName = keyof Events;
