// AnnoLinkCLI
public enum AnnoLinkCommand { public static func main() -> Int32 { 0 } }

