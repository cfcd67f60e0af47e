// Appended by the service to Redoc's bundle (referenceScript.ts; docs/decisions/114). Redoc 2.5's
// side menu names each item with an aria-label that leaves out what it shows (the method badge, and
// for an open tag all of its operations), and its code blocks scroll with no way in for a keyboard.
// This gives each item's visible label the menu-item role and names nothing it does not show, keeps
// tag groups as labelled groups, and lets each code block take focus. React re-renders the menu as
// it opens and closes: an observer applies the same changes again, and they are idempotent.
(() => {
  let labels = 0;
  const labelOf = (item) => {
    const label = item.querySelector(':scope > label');
    if (label && !label.id) label.id = `reference-menu-${(labels += 1)}`;
    return label;
  };
  const fix = () => {
    for (const block of document.querySelectorAll('redoc pre:not([tabindex])')) block.tabIndex = 0;
    for (const item of document.querySelectorAll('redoc li[role="menuitem"], redoc li[role="none"][aria-expanded]')) {
      const label = labelOf(item);
      if (!label) continue;
      const expanded = item.getAttribute('aria-expanded');
      item.removeAttribute('aria-label');
      item.removeAttribute('tabindex');
      item.removeAttribute('aria-expanded');
      if ((item.dataset.itemId ?? '').startsWith('group/')) {
        item.setAttribute('role', 'group');
        item.setAttribute('aria-labelledby', label.id);
        continue;
      }
      item.setAttribute('role', 'none');
      label.setAttribute('role', 'menuitem');
      label.tabIndex = 0;
      if (expanded !== null) label.setAttribute('aria-expanded', expanded);
    }
  };
  new MutationObserver(fix).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ['aria-expanded', 'aria-label', 'role'] });
  fix();
})();
