"""User operations that more than one place starts (a menu, a shortcut, a tab's button): one small
function each, taking what it needs; the views and the window only call it."""
