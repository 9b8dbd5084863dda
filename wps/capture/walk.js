// One walk over the rendered (flat) tree from BODY down, returning ONE JSON string: Playwright's
// structured serialiser is ~10x slower than JSON.stringify + json.loads for thousands of nodes,
// and the payload is kept compact (tables for tags, styles and contexts; one XPath step per node)
// because moving the string through the driver costs more than the walk itself.
//
// Each node is an array:
//   [parent, tag, visibleIndex, allIndex, left, top, right, bottom, text, style, inside, attrs
//    (, base, prefix)]
// parent: index into the node list (-1 for the root); tag: index into `tags` (text nodes use
// "#text"); visibleIndex / allIndex: the 1-based index of the node's XPath step counting visible
// siblings only (Webis) / all siblings; boxes in page coordinates; text: own text of text nodes,
// whitespace collapsed; style: index into `styles` (-1 for text nodes), each entry the computed
// values in the order of args.styles; inside: index into `insides`, context names joined by ",";
// attrs: index into `attrs` (-1 for text nodes), the element's args.attributes values (class, id,
// role, ...) each cut to maxAttrChars: what record and form evidence reads later (href only
// where it points into the page: "#name").
// The root's own XPaths come as rootXpath/rootXpathAll.
//
// The walk follows what is rendered: a host's open shadow root instead of its light children, a
// <slot>'s assigned nodes (flattened), a same-origin iframe's document. Such nodes carry two more
// fields: base, the node whose XPath their step extends (-1: the parent), and prefix, an index
// into `prefixes` ([visible, all, extra depth]) put between the base's XPath and the step:
//   shadow content:  HOST_XPATH/#shadow-root/DIV[1]/text()[1]
//   slotted nodes:   their light-DOM XPath (HOST_XPATH/P[1]); their parent is the <slot>
//   iframe content:  IFRAME_XPATH/#document/HTML[1]/BODY[1]/...
// Light-DOM nodes keep plain Webis XPaths. Boxes inside an iframe are clipped to its content box
// (a node scrolled out of it gets a zero-size box on its edge). Iframes the walk cannot enter
// (cross-origin) are listed in `frames` as [node index, frame (see mainFrame)] and tagged with `el.__wpsFrame = [walkId, i]`
// so the caller can walk them per Playwright frame; `framesSkipped` counts those over the budget.
(args) => {
  const started = performance.now();
  const contexts = args.contexts;
  const styleNames = args.styles;
  const skipped = new Set(args.skip);
  const maxStyleChars = args.maxStyleChars;
  let frameBudget = args.maxFrames;
  // The walked document's viewport in page coordinates: [left, top, clip left, top, right,
  // bottom]; an iframe's document is clipped to the iframe's content box (and its ancestors').
  const mainFrame = args.frame || [window.scrollX, window.scrollY, -Infinity, -Infinity, Infinity,
    Infinity];
  const root = document.documentElement;
  const body = document.body;
  const pageHeight = Math.max(root ? root.scrollHeight : 0, body ? body.scrollHeight : 0);
  const round = (value) => Math.round(value * 100) / 100;

  // Interning tables: most elements share a tag, a style and a context set.
  function table() {
    const values = [];
    const index = new Map();
    return {
      values,
      id(key) {
        let found = index.get(key);
        if (found === undefined) {
          found = values.length;
          values.push(key);
          index.set(key, found);
        }
        return found;
      },
    };
  }
  const tags = table();
  const styles = table();
  const insides = table();
  const prefixes = table();
  const attrs = table();
  const attributeNames = args.attributes;

  function attrsOf(el) {
    let key = "";
    for (let i = 0; i < attributeNames.length; i += 1) {
      let value = el.getAttribute(attributeNames[i]) || "";
      // href: only a link into the page itself ("#name"), see ATTRIBUTES
      if (attributeNames[i] === "href" && !/^#[^#\s]/.test(value)) value = "";
      if (value.length > args.maxAttrChars) value = value.slice(0, args.maxAttrChars);
      key += (i ? "\u0000" : "") + value;
    }
    return attrs.id(key);
  }
  const TEXT = tags.id("#text");
  prefixes.id("");  // 0: no prefix
  const SHADOW = prefixes.id("/#shadow-root\u0000/#shadow-root\u00001");
  const nodes = [];
  const frames = [];
  let framesSkipped = 0;
  let framesUnloaded = 0;
  let shadowRoots = 0;

  // 1: rendered with a box; 2: `display: contents` (no box of its own, but rendered children,
  // boxed by a Range over its contents); 0: not captured.
  function renderKind(el, tag) {
    if (skipped.has(tag)) return 0;
    if (el.offsetWidth || el.offsetHeight || el.getClientRects().length > 0) return 1;
    return getComputedStyle(el).display === "contents" ? 2 : 0;
  }
  const isText = (node) => node.nodeType === 3 || node.nodeType === 4;
  const isBlank = (node) => !/\S/.test(node.data);

  // Steps for every child of `parent` (an element, shadow root or document): [child, tag,
  // visibleIndex (0 = not captured), allIndex, renderKind].
  function childSteps(parent) {
    const allCounts = new Map();
    const visibleCounts = new Map();
    let textAll = 0;
    let textVisible = 0;
    const steps = [];
    for (let child = parent.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 1) {
        const tag = child.tagName.toUpperCase();
        const all = (allCounts.get(tag) || 0) + 1;
        allCounts.set(tag, all);
        let visible = 0;
        const kind = renderKind(child, tag);
        if (kind) {
          visible = (visibleCounts.get(tag) || 0) + 1;
          visibleCounts.set(tag, visible);
        }
        steps.push([child, tag, visible, all, kind]);
      } else if (isText(child)) {
        textAll += 1;
        let visible = 0;
        if (!isBlank(child)) {
          textVisible += 1;
          visible = textVisible;
        }
        steps.push([child, "#text", visible, textAll, 0]);
      }
    }
    return steps;
  }

  function withContext(inside, tag) {
    const context = contexts[tag];
    if (context === undefined) return inside;
    const names = inside ? inside.split(",") : [];
    if (names.includes(context)) return inside;
    names.push(context);
    return names.join(",");
  }

  function mergeContexts(inside, more) {
    if (!more) return inside;
    if (!inside) return more;
    const names = inside.split(",");
    for (const name of more.split(",")) if (!names.includes(name)) names.push(name);
    return names.join(",");
  }

  function styleOf(el) {
    const computed = getComputedStyle(el);
    let key = "";
    for (let i = 0; i < styleNames.length; i += 1) {
      let value = computed.getPropertyValue(styleNames[i]);
      if (value.length > maxStyleChars) value = value.slice(0, maxStyleChars);
      key += (i ? "\u0000" : "") + value;
    }
    return styles.id(key);
  }

  function rootSteps(el) {
    // XPath of `el` from its document's <html> down, both ways of counting, and its contexts.
    const chain = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentNode) chain.unshift(node);
    let visible = "";
    let all = "";
    let inside = "";
    for (const node of chain) {
      const parent = node.parentNode;
      const tag = node.tagName.toUpperCase();
      inside = withContext(inside, tag);
      if (!parent || parent.nodeType !== 1) {
        visible += `/${tag}[1]`;
        all += `/${tag}[1]`;
        continue;
      }
      const step = childSteps(parent).find((entry) => entry[0] === node);
      visible += `/${tag}[${step[2] || step[3]}]`;
      all += `/${tag}[${step[3]}]`;
    }
    return [visible, all, inside, chain.length - 1];
  }

  function frameDocument(el) {
    try {
      const inner = el.contentDocument;
      return inner && inner.body ? inner : null;
    } catch (error) {
      return null;
    }
  }

  function neverLoaded(el, inner) {
    // Still on its initial empty document although its src names a document to fetch: refused
    // (aborted, so no error page) or not arrived. Nothing of the page is in it (the browser's
    // error page a refused frame used to hold could not be entered either), unless a script of
    // the page wrote text into it meanwhile: then that text is what the frame shows.
    return inner.URL === "about:blank" && /^(https?|file):/i.test(el.src || "")
      && !(inner.body && /\S/.test(inner.body.textContent || ""));
  }

  function contentFrame(el, frame) {
    // An iframe's content box in page coordinates (where its document's viewport is painted),
    // clipped by the frame it sits in.
    const rect = el.getBoundingClientRect();
    const computed = getComputedStyle(el);
    const left = frame[0] + rect.left + el.clientLeft + parseFloat(computed.paddingLeft || "0");
    const top = frame[1] + rect.top + el.clientTop + parseFloat(computed.paddingTop || "0");
    const width = el.clientWidth - parseFloat(computed.paddingLeft || "0")
      - parseFloat(computed.paddingRight || "0");
    const height = el.clientHeight - parseFloat(computed.paddingTop || "0")
      - parseFloat(computed.paddingBottom || "0");
    return [left, top, Math.max(left, frame[2]), Math.max(top, frame[3]),
      Math.min(left + width, frame[4]), Math.min(top + height, frame[5])];
  }

  // Rendered children of `el` as stack entries (pushed in reverse so they pop in order).
  // Stack entries: [node, parentIndex, tag, visibleIndex, allIndex, inside, renderKind, frame
  // (see mainFrame), base, prefix]
  const stepCache = new Map();  // light parent -> its childSteps, for slotted nodes
  const capturedIndex = new Map();  // hosts and slots -> node index (bases of slotted nodes)
  function pushChildren(stack, el, tag, index, context, frame) {
    let steps;
    let entries = null;
    if (el.shadowRoot) {
      shadowRoots += 1;
      capturedIndex.set(el, index);
      steps = childSteps(el.shadowRoot);
      for (let i = steps.length - 1; i >= 0; i -= 1) {
        const [child, childTag, visible, all, kind] = steps[i];
        if (visible === 0) continue;
        const childContext = childTag === "#text" ? context : withContext(context, childTag);
        stack.push([child, index, childTag, visible, all, childContext, kind, frame, index, SHADOW]);
      }
      return;
    }
    if (tag === "SLOT" && el.getRootNode().nodeType === 11) {
      capturedIndex.set(el, index);
      entries = [];
      for (const child of el.assignedNodes({flatten: true})) {
        const lightParent = child.parentNode;
        let cached = stepCache.get(lightParent);
        if (cached === undefined) {
          cached = new Map(childSteps(lightParent).map((step) => [step[0], step]));
          stepCache.set(lightParent, cached);
        }
        const step = cached.get(child);
        if (!step || step[2] === 0) continue;
        const base = capturedIndex.has(lightParent) ? capturedIndex.get(lightParent) : index;
        const childContext = step[1] === "#text" ? context : withContext(context, step[1]);
        entries.push([child, index, step[1], step[2], step[3], childContext, step[4], frame,
          base === index ? -1 : base, 0]);
      }
      for (let i = entries.length - 1; i >= 0; i -= 1) stack.push(entries[i]);
      return;
    }
    if (tag === "IFRAME" || tag === "FRAME") {
      if (frameBudget <= 0) {
        framesSkipped += 1;
        return;
      }
      frameBudget -= 1;
      const origin = contentFrame(el, frame);
      const inner = frameDocument(el);
      if (inner !== null && neverLoaded(el, inner)) {
        framesSkipped += 1;
        framesUnloaded += 1;  // within the budget, as a listed frame is
        return;
      }
      if (inner === null) {
        el.__wpsFrame = [args.walkId, frames.length];
        frames.push([index, origin]);
        return;
      }
      const innerBody = inner.body;
      const [visiblePath, allPath, innerInside, depth] = rootSteps(innerBody.parentNode);
      const prefix = prefixes.id(`/#document${visiblePath}\u0000/#document${allPath}\u0000${depth + 2}`);
      const bodyContext = withContext(mergeContexts(context, innerInside), "BODY");
      stack.push([innerBody, index, innerBody.tagName.toUpperCase(), 1, 1, bodyContext, 1,
        origin, -1, prefix]);
      return;
    }
    steps = childSteps(el);
    for (let i = steps.length - 1; i >= 0; i -= 1) {
      const [child, childTag, visible, all, kind] = steps[i];
      if (visible === 0) continue;
      const childContext = childTag === "#text" ? context : withContext(context, childTag);
      stack.push([child, index, childTag, visible, all, childContext, kind, frame, -1, 0]);
    }
  }

  function unionRect(children, range) {
    // A slot or a `display: contents` host has no box: the union of what it renders (a slot's
    // assigned nodes or fallback content, a host's shadow root children).
    let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    for (const child of children) {
      let rect;
      if (child.nodeType === 1) rect = child.getBoundingClientRect();
      else if (isText(child) && !isBlank(child)) {
        range.selectNodeContents(child);
        rect = range.getBoundingClientRect();
      } else continue;
      left = Math.min(left, rect.left); top = Math.min(top, rect.top);
      right = Math.max(right, rect.right); bottom = Math.max(bottom, rect.bottom);
    }
    return left === Infinity ? {left: 0, top: 0, right: 0, bottom: 0} : {left, top, right, bottom};
  }

  const clip = (value, low, high) => round(Math.min(Math.max(value, low), high));
  function row(parent, tag, visible, all, rect, frame, text, style, context, base, prefix,
    attributes) {
    const entry = [parent, tag, visible, all,
      clip(rect.left + frame[0], frame[2], frame[4]), clip(rect.top + frame[1], frame[3], frame[5]),
      clip(rect.right + frame[0], frame[2], frame[4]),
      clip(rect.bottom + frame[1], frame[3], frame[5]),
      text, style, insides.id(context), attributes];
    if (base !== -1 || prefix !== 0) entry.push(base, prefix);
    nodes.push(entry);
  }

  let rootXpath = "";
  let rootXpathAll = "";
  let rootDepth = 0;
  if (body) {
    const range = document.createRange();
    const [xpath, xpathAll, inside, depth] = rootSteps(body);
    rootXpath = xpath;
    rootXpathAll = xpathAll;
    rootDepth = depth;
    const stack = [[body, -1, body.tagName.toUpperCase(), 1, 1, inside, 1, mainFrame, -1,
      0]];
    while (stack.length) {
      const [node, parent, tag, visible, all, context, kind, frame, base, prefix] = stack.pop();
      if (node.nodeType === 1) {
        let rect;
        if (kind === 2) {
          if (node.shadowRoot) rect = unionRect(node.shadowRoot.childNodes, range);
          else if (tag === "SLOT" && node.getRootNode().nodeType === 11) {
            rect = unionRect(node.assignedNodes({flatten: true}), range);
          } else {
            range.selectNodeContents(node);
            rect = range.getBoundingClientRect();
          }
        } else {
          rect = node.getBoundingClientRect();
        }
        row(parent, tags.id(tag), visible, all, rect, frame, "", styleOf(node), context, base,
          prefix, attrsOf(node));
        pushChildren(stack, node, tag, nodes.length - 1, context, frame);
      } else {
        range.selectNodeContents(node);
        row(parent, TEXT, visible, all, range.getBoundingClientRect(), frame,
          node.data.replace(/\s+/g, " ").trim(), -1, context, base, prefix, -1);
      }
    }
  }
  return JSON.stringify({
    nodes: nodes,
    tags: tags.values,
    styles: styles.values.map((key) => key.split("\u0000")),
    insides: insides.values,
    attrs: attrs.values.map((key) => key.split("\u0000")),
    prefixes: prefixes.values.map((key) => key ? key.split("\u0000") : ["", "", "0"]),
    rootXpath: rootXpath,
    rootXpathAll: rootXpathAll,
    rootDepth: rootDepth,
    frames: frames,
    framesSkipped: framesSkipped,
    framesUnloaded: framesUnloaded,
    framesWalked: args.maxFrames - frameBudget - frames.length - framesUnloaded,
    shadowRoots: shadowRoots,
    height: pageHeight,
    width: root ? root.scrollWidth : 0,
    walk_ms: performance.now() - started,
  });
}
