// AnnoLinkAnnotation: label expressions, text metrics and placement.
