import AnnoLinkCLI
import Foundation
exit(AnnoLinkCommand.main())

